import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock';
import { BASE_RATE, Player } from './player.svelte';

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
});
