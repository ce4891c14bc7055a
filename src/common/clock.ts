// Time behind an injectable class so flows and tests agree on "now" (STYLE.md: no Date.now() in services).
export abstract class Clock {
  abstract now(): Date;
  nowMs(): number {
    return this.now().getTime();
  }
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

// A clock tests move by hand.
export class ManualClock extends Clock {
  constructor(private current: Date = new Date('2026-01-01T00:00:00Z')) {
    super();
  }
  now(): Date {
    return new Date(this.current.getTime());
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
  set(date: Date): void {
    this.current = new Date(date.getTime());
  }
}

// The machine's clock moved forward on demand: end-to-end tests let offers and counters run out
// without waiting for them (moving the sandbox's clock by as much). Time never goes back.
export class ShiftedClock extends Clock {
  private shiftMs = 0;
  now(): Date {
    return new Date(Date.now() + this.shiftMs);
  }
  shift(ms: number): void {
    if (!(ms >= 0)) throw new Error(`a clock only moves forward, not by ${ms} ms`);
    this.shiftMs += ms;
  }
}
