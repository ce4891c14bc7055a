import { Injectable, Logger } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { LinkRepository } from '../../ledger';
import { errorMessage } from '../common/job-counts';
import { LINK } from '../common/listing-deal.properties';
import { offerOfSeen } from './offer-seen';
import { OffersService } from './offers.service';

// After a complete offers-reconcile pass: the offers whose first record was being made when its
// answer was lost (a kill, an error after the CRM wrote it) and that the service no longer lists (a
// service may drop an offer from GET /offers once it expires): no later read will list them, so the
// record, if the CRM made it, is found by its offer id, associated and linked, and the pass's
// UnlistedOffers then shows what became of it (Expired, past its expiry). Before, such a record stayed
// in Incoming, associated with nothing, for good (readings sweep 1543 run 2).
@Injectable()
export class UnconfirmedOffers {
  private readonly logger = new Logger(UnconfirmedOffers.name);

  constructor(
    private readonly links: LinkRepository,
    private readonly offers: OffersService,
  ) {}

  // `listed`: every offer id the complete pass read. Says how many records it found and linked.
  async adopt(crm: BrokerageCrm, listed: ReadonlySet<string>): Promise<number> {
    const brokerageId = crm.brokerageId;
    const settled: string[] = [];
    let adopted = 0;
    for (const placeholder of await this.links.listActive(brokerageId, LINK.offerUnconfirmed)) {
      const key = placeholder.remoteId;
      if (await this.links.find(brokerageId, LINK.offer, key)) {
        settled.push(key); // its record was made and linked
        continue;
      }
      if (listed.has(key)) continue; // the pass's own write finds or makes it
      const offer = offerOfSeen(key, placeholder.contentHash);
      if (!offer) {
        settled.push(key);
        continue;
      }
      try {
        // Logged there when found; none found: the record was never made.
        if (await this.offers.recordOfUnlistedOffer(crm, offer)) adopted += 1;
        settled.push(key);
      } catch (error) {
        // Looked for again after the next complete pass.
        this.logger.warn(
          `${brokerageId}: offer ${key} is no longer listed and its record could not be looked up for now: ${errorMessage(error)}`,
        );
      }
    }
    await this.links.markGone(brokerageId, LINK.offerUnconfirmed, settled);
    return adopted;
  }
}
