/**
 * Animation player over a card's recorded timeline: play, pause, step, scrub, speed. It holds
 * only the step index and transport state; what is lit at a step comes from timeline.ts. Time
 * comes from an injectable Clock so tests drive it frame by frame.
 */
import { realClock, type Clock } from './clock';
import { FrameStats } from './frameStats';

/** Steps per second at speed 1. */
export const BASE_RATE = 4;
export const SPEEDS = [0.25, 0.5, 1, 2, 4, 8] as const;

export class Player {
  step = $state(-1);
  length = $state(0);
  playing = $state(false);
  speed = $state(1);
  /** Frame-to-frame intervals while playing, and work done inside each frame. */
  readonly intervals = new FrameStats();
  readonly work = new FrameStats();

  #clock: Clock;
  #handle: number | null = null;
  #last = 0;
  #acc = 0;
  /** Called inside each frame after the step changes; lets the view measure its own work. */
  onFrame: (() => void) | null = null;

  constructor(clock: Clock = realClock) {
    this.#clock = clock;
  }

  get clock(): Clock {
    return this.#clock;
  }

  setClock(clock: Clock) {
    const was = this.playing;
    this.pause();
    this.#clock = clock;
    if (was) this.play();
  }

  /** Point the player at a new timeline; `at` chooses the starting step (default: nothing lit). */
  load(length: number, at = -1) {
    this.pause();
    this.length = length;
    this.step = Math.max(-1, Math.min(at, length - 1));
  }

  get atEnd(): boolean {
    return this.step >= this.length - 1;
  }

  play() {
    if (this.playing || this.length === 0) return;
    if (this.atEnd) this.step = -1;
    this.playing = true;
    this.#last = this.#clock.now();
    this.#acc = 0;
    this.#handle = this.#clock.frame(this.#tick);
  }

  pause() {
    this.playing = false;
    if (this.#handle !== null) this.#clock.cancel(this.#handle);
    this.#handle = null;
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  seek(k: number) {
    this.step = Math.max(-1, Math.min(Math.round(k), this.length - 1));
  }

  stepForward() {
    this.pause();
    this.seek(this.step + 1);
  }

  stepBack() {
    this.pause();
    this.seek(this.step - 1);
  }

  toStart() {
    this.pause();
    this.step = -1;
  }

  toEnd() {
    this.pause();
    this.step = this.length - 1;
  }

  setSpeed(s: number) {
    this.speed = s;
  }

  #tick = (now: number) => {
    const t0 = performance.now();
    const dt = now - this.#last;
    this.#last = now;
    this.intervals.add(dt);
    this.#acc += dt;
    const interval = 1000 / (BASE_RATE * this.speed);
    while (this.#acc >= interval && !this.atEnd) {
      this.#acc -= interval;
      this.step += 1;
    }
    this.onFrame?.();
    this.work.add(performance.now() - t0);
    if (this.atEnd) {
      this.pause();
      return;
    }
    if (this.playing) this.#handle = this.#clock.frame(this.#tick);
  };
}
