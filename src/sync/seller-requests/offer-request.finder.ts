import type { CashOfferClient } from '../../cash-offer';
import type { ActiveOfferRequest } from '../../cash-offer/schema';
import type { LinkRepository } from '../../ledger';
import { LINK } from '../common/listing-deal.properties';
import { streamOffers } from '../common/offer-pages';
import { normalisedAddress } from '../common/normalised-address';

export interface FoundOfferRequest {
  offer_request_id: number;
  inventory_property_id?: number;
  offer_request_status?: string;
  offer_requested_at?: string;
  found_by: 'ledger link' | 'offer payload' | 'offer event' | 'active list' | 'active list (inventory id)';
}

// What a new_offer event this brokerage's webhook URL received says of its request: the request id
// and the external id the service echoes in offer payloads (offer-echoes.ts reads them).
export interface OfferEcho {
  offer_request_id: number;
  offer_request_external_id: string;
}

// How far before a create's own send time the active list is read: the service stamps
// offer_requested_at with its clock, which may be behind ours.
export const CLOCK_SKEW_MARGIN_MS = 60 * 60_000;

// Our requests by the external id we sent (the deal's CRM id): the offers on our requests (read once)
// and the active list, which shows the external id to its owner only. The active list is read newest
// first (offer_requested_at.desc) and only as deep as a lookup needs: a request created after
// `since` is on the pages read before the first page that is wholly older than `since`. One locator
// serves every lookup of a drain run. A request still in review is in neither list.
export class OfferRequestLocator {
  private readonly found = new Map<string, FoundOfferRequest>();
  private offersRead?: Promise<void>;
  private pages?: AsyncIterator<ActiveOfferRequest[]>;
  private reachedMs = Number.POSITIVE_INFINITY;
  private activeDone = false;
  private itemsRead = 0;
  // Items that echo their owner's external id: only ours can, so one seen is the service's word
  // that it shows ours by it.
  private echoedRead = 0;
  // Items that echo no external id, by address and asking price (ours may be among them).
  private readonly byAddress = new Map<string, (number | undefined)[]>();
  // Items by the inventory property id the service gave their request (a create's answer names it);
  // a property listed again has several.
  private readonly byInventory = new Map<number, FoundOfferRequest[]>();

  constructor(
    private readonly client: CashOfferClient,
    private readonly signal?: AbortSignal,
    // The offer events received and still waiting for their request's create: the spec says the
    // external id is echoed in webhook payloads, so a service whose GET /offers leaves it out still
    // names the deal there.
    private readonly offerEvents: () => Promise<OfferEcho[]> = () => Promise.resolve([]),
  ) {}

  async find(externalId: string, since: Date): Promise<FoundOfferRequest | undefined> {
    await (this.offersRead ??= this.readOffers());
    const floor = since.getTime() - CLOCK_SKEW_MARGIN_MS;
    while (
      this.found.get(externalId)?.found_by !== 'active list' &&
      !this.activeDone &&
      this.reachedMs >= floor
    ) {
      await this.readActivePage();
    }
    return this.found.get(externalId);
  }

  // Whether the service's active list shows our requests by the external id we sent, so that one not
  // on it is provably not there: the list is empty, or an item of it echoes an external id. Read
  // past the lookups' floor, to its end if need be, until one does. A service whose list carries
  // only the declared request object (asking price and test), or ids but not our external id, gives
  // no such item: a request of ours may be on it, unrecognisable, and its absence proves nothing.
  async showsOursByExternalId(): Promise<boolean> {
    while (this.echoedRead === 0 && !this.activeDone) await this.readActivePage();
    return this.itemsRead === 0 || this.echoedRead > 0;
  }

  // For a service whose list does not show ours by external id: the one item of the whole list at
  // this property's address and asking price. `absent`: none (so, 60 minutes after the send, never
  // received, as for a list that echoes); `ambiguous`: several, or one that names no request id (the
  // declared request object), which cannot be told apart or linked; else its request id.
  async byAddressAndAsking(
    property: Record<string, unknown>,
    asking: number,
  ): Promise<{ offer_request_id: number } | 'absent' | 'ambiguous'> {
    while (!this.activeDone) await this.readActivePage();
    const key = addressKey(property, asking);
    const matches = key === undefined ? [] : (this.byAddress.get(key) ?? []);
    if (matches.length === 0) return key === undefined ? 'ambiguous' : 'absent';
    const [id] = matches;
    return matches.length === 1 && id !== undefined ? { offer_request_id: id } : 'ambiguous';
  }

  // The request a create answered with this inventory property id but no request id (as the spec's
  // declared response is) produced. The id identifies a property, not a request: a property listed
  // again, by this brokerage or another, has several requests under it. So only a request submitted
  // since `since` (less the clock-skew margin) is taken, and only when it is the one such: two are
  // ambiguous and none is linked, as a request still in review is not on the list yet.
  async byInventoryId(inventoryPropertyId: number, since: Date): Promise<FoundOfferRequest | undefined> {
    const floor = since.getTime() - CLOCK_SKEW_MARGIN_MS;
    while (!this.activeDone && this.reachedMs >= floor) await this.readActivePage();
    const recent = (this.byInventory.get(inventoryPropertyId) ?? []).filter(
      (found) => !(Date.parse(found.offer_requested_at ?? '') < floor),
    );
    return recent.length === 1 ? recent[0] : undefined;
  }

  private async readOffers(): Promise<void> {
    for await (const page of streamOffers(this.client, {}, this.signal)) {
      for (const offer of page) {
        const key = offer.offer_request_external_id;
        if (key && !this.found.has(key))
          this.found.set(key, { offer_request_id: offer.offer_request_id, found_by: 'offer payload' });
      }
    }
    for (const echo of await this.offerEvents()) {
      const key = echo.offer_request_external_id;
      if (!this.found.has(key))
        this.found.set(key, { offer_request_id: echo.offer_request_id, found_by: 'offer event' });
    }
  }

  private async readActivePage(): Promise<void> {
    if (this.signal?.aborted) throw new Error('stopped while reading the active list');
    this.pages ??= this.client
      .streamActiveOfferRequests({ pageSize: 100, sort: 'offer_requested_at.desc' })
      [Symbol.asyncIterator]();
    const next = await this.pages.next();
    if (next.done) {
      this.activeDone = true;
      return;
    }
    let newest = Number.NEGATIVE_INFINITY;
    for (const { request, property } of next.value) {
      this.itemsRead += 1;
      if (request.offer_request_external_id) this.echoedRead += 1;
      else {
        const at = addressKey(property ?? {}, request.offer_request_asking);
        if (at !== undefined)
          this.byAddress.set(at, [...(this.byAddress.get(at) ?? []), request.offer_request_id]);
      }
      if (request.offer_request_id !== undefined && request.inventory_property_id !== undefined)
        this.addByInventory(request.inventory_property_id, {
          offer_request_id: request.offer_request_id,
          inventory_property_id: request.inventory_property_id,
          offer_request_status: request.offer_request_status,
          offer_requested_at: request.offer_requested_at,
          found_by: 'active list (inventory id)',
        });
      const requestedMs = Date.parse(request.offer_requested_at ?? '');
      if (Number.isFinite(requestedMs)) newest = Math.max(newest, requestedMs);
      const key = request.offer_request_external_id;
      if (!key || request.offer_request_id === undefined) continue;
      // The active list knows more than an offer does (inventory id, status, submission time).
      this.found.set(key, {
        offer_request_id: request.offer_request_id,
        inventory_property_id: request.inventory_property_id,
        offer_request_status: request.offer_request_status,
        offer_requested_at: request.offer_requested_at,
        found_by: 'active list',
      });
    }
    // Only a page wholly older than a lookup's floor ends it, so a service that ignores `sort`
    // costs more pages, never a miss on the page at hand. A page without dates does not stop it.
    if (newest !== Number.NEGATIVE_INFINITY) this.reachedMs = Math.min(this.reachedMs, newest);
  }

  // A request met again (a list that moved between pages) counts once.
  private addByInventory(inventoryPropertyId: number, found: FoundOfferRequest): void {
    const known = this.byInventory.get(inventoryPropertyId) ?? [];
    if (!known.some((k) => k.offer_request_id === found.offer_request_id))
      this.byInventory.set(inventoryPropertyId, [...known, found]);
  }
}

function addressKey(property: Record<string, unknown>, asking: unknown): string | undefined {
  const address = normalisedAddress(property);
  return address === undefined || typeof asking !== 'number' ? undefined : `${address}#${asking}`;
}

// The offer request a listing deal produced: the ledger first (an earlier write-back or event named
// it), then the service's lists down to `since` (when the create was sent).
export async function findOfferRequestByExternalId(
  brokerageId: string,
  dealId: string,
  links: LinkRepository,
  locator: OfferRequestLocator,
  since: Date,
): Promise<FoundOfferRequest | undefined> {
  const link = await links.findByCrmId(brokerageId, LINK.offerRequest, dealId);
  if (link) return { offer_request_id: Number(link.remoteId), found_by: 'ledger link' };
  return locator.find(dealId, since);
}
