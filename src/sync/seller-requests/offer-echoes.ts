import { positiveId } from '../../cash-offer';
import type { InboxRepository } from '../../ledger';
import type { OfferEcho } from './offer-request.finder';

// The most waiting offer events read for one lookup: those waiting for a create are few (one per
// offer made on a request whose create's answer was lost).
const EVENTS_READ = 500;

// The request id and echoed external id of a new_offer event's payload, when it names both.
export function offerEchoOf(payload: unknown): OfferEcho | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const { offer_request_id: id, offer_request_external_id: externalId } = payload as Record<string, unknown>;
  const requestId = positiveId(id);
  if (requestId === undefined || typeof externalId !== 'string' || externalId.trim() === '') return undefined;
  return { offer_request_id: requestId, offer_request_external_id: externalId };
}

// The new_offer events this brokerage's webhook URL received that still wait to be applied (an
// offer on a request not linked yet waits for its create): each names the request the service made
// for the deal whose id it echoes.
export async function waitingOfferEchoes(inbox: InboxRepository, brokerageId: string): Promise<OfferEcho[]> {
  const events = await inbox.list({
    brokerageId,
    eventType: 'new_offer',
    statuses: ['pending', 'processing', 'failed'],
    limit: EVENTS_READ,
  });
  return events.flatMap((event) => {
    try {
      const echo = offerEchoOf(JSON.parse(event.payload));
      return echo ? [echo] : [];
    } catch {
      return [];
    }
  });
}
