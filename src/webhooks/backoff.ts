// "Full jitter" (AWS Architecture Blog, Exponential Backoff and Jitter): a uniformly random wait
// up to an exponentially growing, capped ceiling. Used for retries persisted in the ledger, where
// an in-process retry library cannot hold the state across restarts.
export function fullJitterDelayMs(
  attempt: number,
  baseMs: number,
  capMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}
