import { Injectable } from '@nestjs/common';
import { OfferService } from './offer.service';
import { RequestLifecycle } from './request.lifecycle';
import { SandboxClock } from './sandbox.clock';
import { SandboxStore } from './sandbox.store';

// Expires offers, requests and (under the counterLapse reading) counters by the sandbox clock: on every API call once something is due,
// after a clock advance, and on a light timer for state nobody is asking about.
@Injectable()
export class ExpirySweeper {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly store: SandboxStore,
    private readonly clock: SandboxClock,
    private readonly lifecycle: RequestLifecycle,
    private readonly offers: OfferService,
  ) {}

  start(intervalMs = 500): void {
    this.timer = setInterval(() => this.sweepIfDue(), intervalMs);
    this.timer.unref();
  }

  sweepIfDue(): void {
    if (this.clock.nowMs() >= this.store.nextExpiryMs) this.sweep();
  }

  sweep(): void {
    const now = this.clock.nowMs();
    // Lapsed counters first: an offer they reopen past its own expiry runs out in the same sweep.
    let next = this.offers.lapseDue(now);
    this.offers.expireDue(now);
    for (const o of this.store.activeOffers) next = Math.min(next, Date.parse(o.offer_expires));
    for (const r of [...this.store.expiringRequests]) {
      const at =
        r.offer_request_expires_at === null
          ? Number.POSITIVE_INFINITY
          : Date.parse(r.offer_request_expires_at);
      if (at <= now) this.lifecycle.deactivate(r, 'expired');
      else next = Math.min(next, at);
    }
    this.store.nextExpiryMs = next;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
