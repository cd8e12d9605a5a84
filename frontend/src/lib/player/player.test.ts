import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock';
import { BASE_RATE, MOTION_MS, Player } from './player.svelte';

describe('Player on a manual clock', () => {
  it('advances BASE_RATE steps per second at speed 1 and stops at the end', () => {
    const clock = new ManualClock();
    const p = new Player(clock);
    p.load(10);
    p.play();
    clock.advance(1000);
    expect(p.step).toBe(BASE_RATE - 1);
    expect(p.playing).toBe(true);
    clock.advance(5000);
    expect(p.step).toBe(9);
    expect(p.playing).toBe(false);
    expect(p.intervals.summary().count).toBeGreaterThan(0);
  });

  it('scales with speed', () => {
    const clock = new ManualClock();
    const p = new Player(clock);
    p.load(100);
    p.setSpeed(4);
    p.play();
    clock.advance(1000);
    expect(p.step).toBe(BASE_RATE * 4 - 1);
  });

  it('pauses, steps and seeks within bounds', () => {
    const clock = new ManualClock();
    const p = new Player(clock);
    p.load(3);
    p.stepBack();
    expect(p.step).toBe(-1);
    p.stepForward();
    p.stepForward();
    expect(p.step).toBe(1);
    p.seek(50);
    expect(p.step).toBe(2);
    p.play(); // at the end: restarts from the beginning
    expect(p.step).toBe(-1);
    p.pause();
    clock.advance(2000);
    expect(p.step).toBe(-1);
    p.toEnd();
    expect(p.atEnd).toBe(true);
  });

  it('does not play an empty timeline', () => {
    const p = new Player(new ManualClock());
    p.load(0);
    p.play();
    expect(p.playing).toBe(false);
  });

  it("animates each step's motion on the same frame loop, and lands it with reduced motion", () => {
    const clock = new ManualClock();
    const frames = { queued: 0 };
    const counting = {
      now: () => clock.now(),
      frame: (cb: (t: number) => void) => {
        frames.queued += 1;
        return clock.frame((t) => {
          frames.queued -= 1;
          cb(t);
        });
      },
      cancel: (h: number) => clock.cancel(h),
    };
    const p = new Player(counting);
    p.reducedMotion = false;
    p.load(5);
    p.stepForward();
    expect(p.progress).toBe(0);
    clock.advance(MOTION_MS / 2);
    expect(p.progress).toBeGreaterThan(0.3);
    expect(p.progress).toBeLessThan(0.7);
    p.stepForward(); // a second step restarts the motion without a second loop
    expect(p.progress).toBe(0);
    expect(frames.queued).toBe(1);
    clock.advance(MOTION_MS + 32);
    expect(p.progress).toBe(1);
    expect(frames.queued).toBe(0); // at rest: no frame requested
    p.reducedMotion = true;
    p.stepForward();
    expect(p.progress).toBe(1);
    expect(frames.queued).toBe(0);
  });
});
