/**
 * Animation player over a card's recorded timeline: play, pause, step, scrub, speed. It holds
 * the step index, transport state and `progress` (0..1), how far the current step's motion
 * (a cotangent travelling along its edge) has got. One requestAnimationFrame loop drives both
 * playing and that motion; with prefers-reduced-motion a step lands at once (progress 1).
 * What is lit at a step comes from timeline.ts. Time comes from an injectable Clock so tests
 * drive it frame by frame.
 */
import { realClock, type Clock } from './clock';
import { FrameStats } from './frameStats';

/** Steps per second at speed 1: slow enough to follow one contribution at a time. */
export const BASE_RATE = 2;
export const SPEEDS = [0.25, 0.5, 1, 2, 4, 8] as const;
/** Longest a step's motion lasts (while paused, or when playing slowly). */
export const MOTION_MS = 600;

function reducedMotionQuery(): MediaQueryList | null {
  return typeof matchMedia === 'function' ? matchMedia('(prefers-reduced-motion: reduce)') : null;
}

export class Player {
  step = $state(-1);
  length = $state(0);
  playing = $state(false);
  speed = $state(1);
  /** 0..1: progress of the current step's motion (1 = at rest). */
  progress = $state(1);
  reducedMotion = $state(false);
  /** Frame-to-frame intervals while the loop runs, and work done inside each frame. */
  readonly intervals = new FrameStats();
  readonly work = new FrameStats();

  #clock: Clock;
  #handle: number | null = null;
  #last = 0;
  #acc = 0;
  #stepAt = 0;
  /** Called inside each frame after the step changes; lets the view measure its own work. */
  onFrame: (() => void) | null = null;

  constructor(clock: Clock = realClock) {
    this.#clock = clock;
    // Follows the system setting while the page is open, not only as it was at load.
    const q = reducedMotionQuery();
    this.reducedMotion = q?.matches ?? false;
    q?.addEventListener?.('change', (e) => {
      this.reducedMotion = e.matches;
      if (e.matches) this.progress = 1;
    });
  }

  get clock(): Clock {
    return this.#clock;
  }

  setClock(clock: Clock) {
    const was = this.playing;
    this.pause();
    this.#stop();
    this.#clock = clock;
    this.progress = 1;
    if (was) this.play();
  }

  /** Point the player at a new timeline; `at` chooses the starting step (default: nothing lit). */
  load(length: number, at = -1) {
    this.pause();
    this.#stop();
    this.length = length;
    this.step = Math.max(-1, Math.min(at, length - 1));
    this.progress = 1;
  }

  get atEnd(): boolean {
    return this.step >= this.length - 1;
  }

  /** Milliseconds one step's motion takes at the current speed. */
  get motionMs(): number {
    if (this.reducedMotion) return 0;
    return this.playing ? Math.min(MOTION_MS, 1000 / (BASE_RATE * this.speed)) : MOTION_MS;
  }

  play() {
    if (this.playing || this.length === 0) return;
    if (this.atEnd) this.step = -1;
    this.playing = true;
    this.#acc = 0;
    this.#run();
  }

  pause() {
    this.playing = false;
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  seek(k: number) {
    const next = Math.max(-1, Math.min(Math.round(k), this.length - 1));
    if (next === this.step) return;
    this.step = next;
    this.#moved();
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
    this.seek(-1);
  }

  toEnd() {
    this.pause();
    this.seek(this.length - 1);
  }

  setSpeed(s: number) {
    this.speed = s;
  }

  /** The step changed: start its motion (or land at once with reduced motion). */
  #moved() {
    this.#stepAt = this.#clock.now();
    if (this.motionMs <= 0) {
      this.progress = 1;
      return;
    }
    this.progress = 0;
    this.#run();
  }

  #run() {
    if (this.#handle !== null) return;
    this.#last = this.#clock.now();
    this.#handle = this.#clock.frame(this.#tick);
  }

  #stop() {
    if (this.#handle !== null) this.#clock.cancel(this.#handle);
    this.#handle = null;
  }

  #advance(now: number, dt: number) {
    this.#acc += dt;
    const interval = 1000 / (BASE_RATE * this.speed);
    while (this.#acc >= interval && !this.atEnd) {
      this.#acc -= interval;
      this.step += 1;
      this.#stepAt = now - this.#acc;
    }
  }

  #tick = (now: number) => {
    this.#handle = null;
    const t0 = performance.now();
    const dt = now - this.#last;
    this.#last = now;
    this.intervals.add(dt);
    if (this.playing) this.#advance(now, dt);
    const ms = this.motionMs;
    this.progress = ms > 0 ? Math.min(1, (now - this.#stepAt) / ms) : 1;
    if (this.playing && this.atEnd) this.playing = false;
    this.onFrame?.();
    this.work.add(performance.now() - t0);
    if (this.playing || this.progress < 1) this.#handle = this.#clock.frame(this.#tick);
  };
}
