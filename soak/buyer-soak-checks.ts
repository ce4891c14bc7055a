import type { Violation } from './soak-checks';

// What the buyer side must show once the daemon has settled after its kills, checked from outside
// (soak/buyer-soak.ts): the marketplace as the service lists it, one record per listing, and every
// buyer lead the agent asked for sent at most once and either shown on its contact or said to be in
// doubt there.

// A request as the service stores it (the sandbox's control view).
export interface ServiceListing {
  offer_request_id: number;
  inventory_property_id: number | null;
  offer_request_status: string;
  offer_request_asking: number | null;
  property?: { StreetNumber?: string; StreetName?: string; PostalCode?: string };
}

export interface ServiceLead {
  lead_id: string;
  last_name: string;
  offer_request_id: number;
}

// A marketplace record as the CRM shows it (HubSpot's property names; `stage` is the stage's key in
// the marketplace pipeline: `active` or `no_longer_listed`).
export interface MarketplaceRecord {
  id: string;
  key: string;
  requestId: string;
  inventoryId: string;
  status: string;
  asking: string;
  stage: string;
  // The street address and postal code shown (a listing with no ids is told by its address).
  address: string;
  postalCode: string;
}

// One ask of the agent: a buyer contact flagged to submit a lead on the listing of one marketplace
// record (`requestId` as that record showed it when flagged; empty when it showed none).
export interface LeadAsk {
  contactId: string;
  lastName: string;
  requestId: string;
  // Whether the contact carried what a lead needs (both names, an email or a phone).
  complete: boolean;
}

export interface ContactShown {
  id: string;
  leadId: string;
  error: string;
}

export interface BuyerSoakFacts {
  listings: readonly ServiceListing[];
  leads: readonly ServiceLead[];
  records: readonly MarketplaceRecord[];
  asks: readonly LeadAsk[];
  contacts: ReadonlyMap<string, ContactShown>;
}

export interface BuyerSoakFigures {
  leadsShown: number; // sent once, the contact showing its id
  leadsInDoubt: number; // sent or not, the contact saying its answer was lost (the operator's to check)
  leadsRefused: number; // not sent, the contact saying why
  leadsDeclined: number; // of those, declined by the daemon itself as lacking what a lead needs
  // Of those, on a listing the service's active list gave no request id for (activeListShape
  // `declared`): no lead can name it, so a run of such asks tests the explanation, not the send.
  leadsUnnamed: number;
}

// What a contact says of a lead whose answer was lost (the service has no lead lookup).
export const IN_DOUBT = /may already have been submitted/;
// What a contact says when the daemon itself declined the lead for want of what a lead needs (both
// names, an email or a phone): wrong on a contact that carries them, whoever else refuses leads.
export const DECLINED_AS_INCOMPLETE = /has no first name|has no last name|has neither an email nor a phone/;
// What a contact says when its listing carries no request id a lead could name.
export const LISTING_UNNAMED = /carries no offer request id/;

export function checkBuyerSoak(facts: BuyerSoakFacts): {
  violations: Violation[];
  figures: BuyerSoakFigures;
} {
  const violations = [...marketplaceWrong(facts), ...leadsWrong(facts)];
  return { violations, figures: leadFigures(facts) };
}

// The record a listing shows on: by the request id it carries, else by the inventory id, else by its
// street address and postal code (a service whose list carries only the declared request object
// gives no ids at all).
function listingOf(
  record: MarketplaceRecord,
  byRequest: ReadonlyMap<string, ServiceListing>,
  byInventory: ReadonlyMap<string, ServiceListing>,
  byAddress: ReadonlyMap<string, ServiceListing>,
): ServiceListing | undefined {
  if (record.requestId) return byRequest.get(record.requestId);
  if (record.inventoryId) return byInventory.get(record.inventoryId);
  return byAddress.get(addressKey(record.address, record.postalCode));
}

const addressKey = (street: string, postalCode: string): string =>
  `${street
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()}|${postalCode.trim()}`;

function listingAddress(l: ServiceListing): string | undefined {
  const p = l.property;
  if (!p?.StreetNumber || !p.StreetName || !p.PostalCode) return undefined;
  return addressKey(`${p.StreetNumber} ${p.StreetName}`, p.PostalCode);
}

export function marketplaceWrong(facts: BuyerSoakFacts): Violation[] {
  const violations: Violation[] = [];
  const byRequest = new Map(facts.listings.map((l) => [String(l.offer_request_id), l]));
  const byInventory = new Map(
    facts.listings
      .filter((l) => l.inventory_property_id !== null)
      .map((l) => [String(l.inventory_property_id), l]),
  );
  const byAddress = new Map(
    facts.listings.flatMap((l) => {
      const key = listingAddress(l);
      return key ? [[key, l] as const] : [];
    }),
  );
  const byKey = new Map<string, MarketplaceRecord[]>();
  for (const r of facts.records) byKey.set(r.key, [...(byKey.get(r.key) ?? []), r]);
  for (const [key, records] of byKey)
    if (records.length > 1)
      violations.push({
        kind: 'duplicate',
        record: `listing ${key}`,
        detail: `${records.length} marketplace records (${records.map((r) => r.id).join(', ')})`,
      });
  const shownFor = new Map<number, MarketplaceRecord[]>();
  for (const record of facts.records) {
    const listing = listingOf(record, byRequest, byInventory, byAddress);
    if (listing)
      shownFor.set(listing.offer_request_id, [...(shownFor.get(listing.offer_request_id) ?? []), record]);
    const listed = listing?.offer_request_status === 'active';
    const want = listed ? 'active' : 'no_longer_listed';
    const wrong = [
      record.stage !== want && `stage ${record.stage}`,
      record.status !== want && `status ${record.status || '(empty)'}`,
      listed &&
        listing.offer_request_asking !== null &&
        Number(record.asking) !== listing.offer_request_asking &&
        `asking ${record.asking || '(empty)'}, the service's ${listing.offer_request_asking}`,
    ].filter(Boolean);
    if (wrong.length > 0)
      violations.push({
        kind: 'wrong state',
        record: `marketplace record ${record.id} (${record.key})`,
        detail:
          `${wrong.join(', ')}; the service has request ${listing?.offer_request_id ?? '(none found)'} ${listing?.offer_request_status ?? ''}, so ${want}`.trim(),
      });
  }
  for (const listing of facts.listings)
    if (listing.offer_request_status === 'active' && !shownFor.has(listing.offer_request_id))
      violations.push({
        kind: 'lost',
        record: `request ${listing.offer_request_id}`,
        detail: 'listed active by the service, no marketplace record shows it',
      });
  return violations;
}

function leadsOf(facts: BuyerSoakFacts, ask: LeadAsk): ServiceLead[] {
  return facts.leads.filter(
    (l) => l.last_name === ask.lastName && String(l.offer_request_id) === ask.requestId,
  );
}

export function leadsWrong(facts: BuyerSoakFacts): Violation[] {
  const violations: Violation[] = [];
  for (const ask of facts.asks) {
    const sent = leadsOf(facts, ask);
    const shown = facts.contacts.get(ask.contactId) ?? { id: ask.contactId, leadId: '', error: '' };
    const record = `contact ${ask.contactId} (${ask.lastName}) on request ${ask.requestId || '(none)'}`;
    if (sent.length > 1) {
      violations.push({ kind: 'duplicate', record, detail: `${sent.length} leads at the service` });
      continue;
    }
    if (sent.length === 1) {
      const [lead] = sent;
      if (IN_DOUBT.test(shown.error)) continue; // honest: the answer was lost, the operator checks
      if (shown.leadId !== lead.lead_id || shown.error !== '')
        violations.push({
          kind: 'wrong state',
          record,
          detail: `the service has lead ${lead.lead_id}; the contact shows lead id ${shown.leadId || '(empty)'}, error ${shown.error || '(empty)'}`,
        });
      continue;
    }
    if (shown.leadId !== '')
      violations.push({
        kind: 'wrong state',
        record,
        detail: `the contact shows lead ${shown.leadId}, the service has none`,
      });
    else if (ask.complete && DECLINED_AS_INCOMPLETE.test(shown.error))
      violations.push({
        kind: 'wrong state',
        record,
        detail: `the contact carries both names and an email or a phone, yet says: ${shown.error}`,
      });
    else if (shown.error === '')
      violations.push({
        kind: 'lost',
        record,
        detail: ask.complete
          ? 'no lead at the service and nothing said on the contact'
          : 'the contact lacks what a lead needs and nothing says so on it',
      });
  }
  return violations;
}

function leadFigures(facts: BuyerSoakFacts): BuyerSoakFigures {
  const figures: BuyerSoakFigures = {
    leadsShown: 0,
    leadsInDoubt: 0,
    leadsRefused: 0,
    leadsDeclined: 0,
    leadsUnnamed: 0,
  };
  for (const ask of facts.asks) {
    const shown = facts.contacts.get(ask.contactId);
    if (IN_DOUBT.test(shown?.error ?? '')) figures.leadsInDoubt++;
    else if (shown?.leadId) figures.leadsShown++;
    else if (shown?.error) {
      figures.leadsRefused++;
      if (DECLINED_AS_INCOMPLETE.test(shown.error)) figures.leadsDeclined++;
      if (LISTING_UNNAMED.test(shown.error)) figures.leadsUnnamed++;
    }
  }
  return figures;
}
