import { Injectable, Logger } from '@nestjs/common';
import { OfferService } from './offer.service';
import { RequestLifecycle } from './request.lifecycle';
import { SandboxStore } from './sandbox.store';
import { SeededRandom } from './seeded-random';

const MAX_OFFERS_PER_REQUEST = 3;

// Simulated buyers on a timer: new requests are processed and approved, and active requests
// (made through the API) receive up to three offers, one per tick at most.
@Injectable()
export class Autopilot {
  private readonly logger = new Logger('CashOfferSandboxAutopilot');
  private readonly random = new SeededRandom(42);
  private timer?: NodeJS.Timeout;
  intervalMs = 1000;

  constructor(
    private readonly store: SandboxStore,
    private readonly lifecycle: RequestLifecycle,
    private readonly offers: OfferService,
  ) {}

  get enabled(): boolean {
    return this.timer !== undefined;
  }

  set(enabled: boolean, intervalMs = this.intervalMs): void {
    this.stop();
    this.intervalMs = intervalMs;
    if (!enabled) return;
    this.timer = setInterval(() => this.tick(), intervalMs);
    this.timer.unref();
  }

  tick(): void {
    for (const r of this.store.apiRequests) {
      try {
        if (r.offer_request_status === 'in_review') this.lifecycle.apply(r, 'process');
        if (r.offer_request_status === 'processing') this.lifecycle.apply(r, 'approve');
        else if (this.lifecycle.isActive(r)) {
          const count = this.store.offersByRequest.get(r.offer_request_id)?.length ?? 0;
          if (count < MAX_OFFERS_PER_REQUEST && this.random.chance(0.7))
            this.offers.makeOffer(r, {
              offer_amount: Math.round(r.offer_request_asking * (0.8 + this.random.next() * 0.15)),
            });
        }
      } catch (e) {
        this.logger.warn(
          `autopilot skipped offer request ${r.offer_request_id}: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
