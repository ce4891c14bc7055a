// How many of its slots a limiter may use when the remote's real limit may be below the one it was
// given: a service whose limit is not published (the Cash Offer spec shows none) refuses the calls
// over it with 429, often with no Retry-After to say how long to wait. Each refusal halves the pace
// (at most once a window: the calls already out when the first 429 came were sent at the old pace),
// and it grows back by one slot every `recoverEveryMs` without one, up to the full limit: TCP's
// additive increase, multiplicative decrease (RFC 5681 §3.1), so a pace above the remote's limit
// settles just under it instead of spending every other call on a refusal.
export interface PaceSettings {
  // Refusals within this long of the last cut do not cut again.
  holdMs: number;
  recoverEveryMs: number;
}

export interface PaceCut {
  from: number;
  to: number;
}

export class AdaptivePace {
  // The last cut: when, and to how many slots; none before the first.
  private cut: { at: number; to: number } | undefined;

  constructor(
    private readonly max: number,
    private readonly settings: PaceSettings,
  ) {}

  // The slots usable at `now` (Date.now() ms).
  allowed(now: number): number {
    if (!this.cut) return this.max;
    const grown = this.cut.to + Math.floor(Math.max(0, now - this.cut.at) / this.settings.recoverEveryMs);
    return Math.min(this.max, grown);
  }

  // The remote refused a call as over its limit: halves the pace, unless it was cut within holdMs.
  // Says what it did, or undefined when the refusal was one of the calls sent before the last cut.
  slowDown(now: number): PaceCut | undefined {
    if (this.cut && now - this.cut.at < this.settings.holdMs) return undefined;
    const from = this.allowed(now);
    const to = Math.max(1, Math.floor(from / 2));
    this.cut = { at: now, to };
    return { from, to };
  }
}
