import { Injectable, Logger } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import type { Offer } from '../../cash-offer/schema';
import { Clock } from '../../common/clock';
import { LINK_CONTENT_WIDTH, LinkRepository } from '../../ledger';
import { errorMessage } from '../common/job-counts';
import { LINK } from '../common/listing-deal.properties';
import { offerOfSeen, offerSeenContent } from './offer-seen';
import { linkedRequestIds } from './linked-requests';
import { closedWithoutSale } from './offer-record.view';
import { OffersService } from './offers.service';

// How long an offer on a request no deal is linked to is kept, should the request be linked later:
// well past the hour after which a create's look takes a request it cannot find as never received
// (offer-request.finder.ts); one made outside the daemon, never linked, is forgotten after this.
export const UNLINKED_OFFER_KEPT_MS = 24 * 60 * 60_000;

// The placeholder CRM id of a kept offer: unique per offer, vouching for no record.
function keptCrmId(offerId: string): string {
  return `unlinked:${offerId}`;
}

// What the record is made from, should the offer be gone by the time its request is linked: never
// given up to fit a link's content.
const ESSENTIAL = [
  'offer_id',
  'offer_request_id',
  'offer_amount',
  'offer_status',
  'offer_expires',
  'created_at',
];

// The offer as read, in a link's content: whole where it fits, else without its longest other
// fields (free text, terms) until it does; an offer whose essentials alone do not fit keeps what an
// offer's first record needs (OfferSeen).
export function keptOfferContent(offer: Offer): string {
  const kept: Record<string, unknown> = { ...offer };
  const size = (key: string) => JSON.stringify(kept[key] ?? null).length;
  const givenUp = Object.keys(kept)
    .filter((key) => !ESSENTIAL.includes(key))
    .sort((a, b) => size(b) - size(a));
  let content = JSON.stringify(kept);
  for (const key of givenUp) {
    if (content.length <= LINK_CONTENT_WIDTH) break;
    delete kept[key];
    content = JSON.stringify(kept);
  }
  return content.length <= LINK_CONTENT_WIDTH ? content : offerSeenContent(offer);
}

// The offer a kept link holds; undefined when its content is not one (a ledger edited by hand).
export function offerOfKept(offerId: string, content: string): Offer | undefined {
  try {
    const kept = JSON.parse(content) as Partial<Offer> | null;
    if (kept && String(kept.offer_id) === offerId && typeof kept.offer_request_id === 'number')
      return kept as Offer;
  } catch {
    return undefined;
  }
  return offerOfSeen(offerId, content);
}

// Offers a complete offers pass read on a request no listing deal is linked to yet: a create whose
// answer was lost, or that was answered without the request id, is linked only once its look finds
// the request (the events naming the deal may never come: a service that delivers each event once,
// while the daemon was down). An offer made meanwhile that runs out and drops off GET /offers before
// then would never be shown (targeted soak 4646: a create cut by a kill, found 110 s later, its
// offers read by passes and gone by then). Each such offer still open is kept as first read
// (LINK.offerOnUnlinkedRequest); once its request is linked, a pass that no longer lists it makes
// its record from that copy, and the same pass's UnlistedOffers shows what became of it (Expired,
// past its expiry). One the pass lists is written by the pass itself.
@Injectable()
export class OffersOnUnlinkedRequests {
  private readonly logger = new Logger(OffersOnUnlinkedRequests.name);

  constructor(
    private readonly links: LinkRepository,
    private readonly offers: OffersService,
    private readonly clock: Clock,
  ) {}

  // One page of a complete pass, read at `readAt`: its open offers on requests not linked, kept
  // (an offer already kept, or kept and settled, is left as it is).
  async keep(brokerageId: string, page: readonly Offer[], readAt: Date): Promise<void> {
    const open = page.filter(
      (o) => o.offer_status !== 'accepted' && !closedWithoutSale(o.offer_status ?? ''),
    );
    const linked = await linkedRequestIds(this.links, brokerageId, open);
    const unlinked = open.filter((o) => !linked.has(o.offer_request_id));
    await this.links.insertMissing(
      brokerageId,
      LINK.offerOnUnlinkedRequest,
      unlinked.map((offer) => ({
        remoteId: String(offer.offer_id),
        crmId: keptCrmId(String(offer.offer_id)),
        contentHash: keptOfferContent(offer),
        readAt,
      })),
    );
  }

  // After a complete pass that listed `listed`: kept offers whose request is linked now and that the
  // pass did not list get their record. Says how many it made.
  async showLinked(crm: BrokerageCrm, listed: ReadonlySet<string>): Promise<number> {
    const brokerageId = crm.brokerageId;
    const settled: string[] = [];
    let shown = 0;
    for (const kept of await this.links.listActive(brokerageId, LINK.offerOnUnlinkedRequest)) {
      const key = kept.remoteId;
      const offer = offerOfKept(key, kept.contentHash);
      if (!offer || (await this.links.find(brokerageId, LINK.offer, key))) {
        settled.push(key);
        continue;
      }
      if (!(await this.links.find(brokerageId, LINK.offerRequest, String(offer.offer_request_id)))) {
        if (this.clock.nowMs() - kept.createdAt.getTime() > UNLINKED_OFFER_KEPT_MS) settled.push(key);
        continue;
      }
      // Listed: linked after its page was read; the next pass writes it as listed.
      if (listed.has(key)) continue;
      try {
        const counts = await this.offers.applyOffers(crm, [offer], { readAt: kept.readAt ?? kept.createdAt });
        if (counts.failed > 0) continue; // its record error says why; tried again after the next pass
        shown += 1;
        settled.push(key);
        this.logger.log(
          `${brokerageId}: offer ${key} on offer request ${offer.offer_request_id}, read while the request was not linked and no longer listed, shown from that read`,
        );
      } catch (error) {
        this.logger.warn(
          `${brokerageId}: offer ${key}, read while its request was not linked, could not be shown for now: ${errorMessage(error)}`,
        );
      }
    }
    await this.links.markGone(brokerageId, LINK.offerOnUnlinkedRequest, settled);
    return shown;
  }
}
