/**
 * Reconnect delays: exponential from `base` doubling up to `max`, with "equal jitter" (half
 * fixed, half random) so many tabs reconnecting after a server restart do not arrive in step.
 */
export interface BackoffOptions {
  base: number;
  max: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { base: 250, max: 8000 };

export function backoffDelay(
  attempt: number,
  opts: BackoffOptions = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  const cap = Math.min(opts.max, opts.base * 2 ** Math.max(0, attempt));
  return Math.round(cap / 2 + (random() * cap) / 2);
}
