import { Injectable } from '@nestjs/common';
// The sandbox's own time: the machine's clock plus an offset the control API can advance, so
// tests can make offers, requests and signed media URLs expire without waiting.
@Injectable()
export class SandboxClock {
  private offsetMs = 0;

  nowMs(): number {
    return Date.now() + this.offsetMs;
  }

  nowIso(): string {
    return new Date(this.nowMs()).toISOString();
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  reset(): void {
    this.offsetMs = 0;
  }
}
