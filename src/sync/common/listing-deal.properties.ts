import { CRM_ROLE } from '../../crm/crm-roles';
import { REQUEST_TRIGGER_PROPERTY } from '../../crm/crm-schema';

// The cash-offer properties of a listing deal (see CASH_OFFER_CRM_SCHEMA), by role.
export const DEAL = {
  trigger: REQUEST_TRIGGER_PROPERTY,
  requestId: 'cash_offer_request_id',
  inventoryId: 'cash_offer_inventory_property_id',
  status: 'cash_offer_request_status',
  submittedAt: 'cash_offer_request_submitted_at',
  prelimBuyers: 'cash_offer_prelim_buyer_count',
  prelimBuyBoxes: 'cash_offer_prelim_buy_box_count',
  syncError: 'cash_offer_sync_error',
  offerCount: 'cash_offer_offer_count',
  bestOffer: 'cash_offer_best_offer',
  photos: 'cash_offer_photo_urls',
  testRecord: 'cash_offer_test_record',
  name: CRM_ROLE.name,
} as const;

// Ledger link kinds the seller flows keep.
export const LINK = {
  // remote: offer request id; CRM: listing deal id; hash: the updatable fields last sent.
  offerRequest: 'offer_request',
  // remote: offer request id; CRM: listing deal id; hash: the status last written.
  requestStatus: 'offer_request_status',
  // remote: offer request id; CRM: listing deal id; hash: offer count and best offer last written.
  offerSummary: 'offer_summary',
  // remote: offer id; CRM: offer record id; hash: the properties last written.
  offer: 'offer',
  // remote: offer id; CRM: a placeholder, vouching for no record; hash: the offer as first read
  // (OfferSeen). Written before an offer's first record is made: a create whose answer is lost, or a
  // stop before its `offer` link is saved, leaves this to find the record by, should the offer leave
  // GET /offers before another read lists it (OffersService.adoptUnconfirmed).
  offerUnconfirmed: 'offer_unconfirmed',
  // remote: offer id; CRM: a placeholder, vouching for no record; hash: the offer as first read
  // (OfferSeen), with its read time. An open offer a complete pass read on a request no listing deal
  // is linked to yet, kept so that it is shown should the request be linked after the offer left
  // GET /offers (OffersOnUnlinkedRequests).
  offerOnUnlinkedRequest: 'offer_unlinked_request',
  // remote: the countered offer's id; CRM: the counter offer id; hash: the counter's status.
  counter: 'counter_offer',
  // remote and CRM id: the offer id; hash: seconds from the offer to its decision (or "" when the
  // service gave no decision time). Written once, when a pass first lists the offer decided
  // (offer-numbers.ts).
  offerDecision: 'offer_decision',
  // remote and CRM id: the offer id; hash: when a read first listed the offer accepted (ISO). Written
  // once, by the first summary that shows it accepted: dates an acceptance the service gave no time
  // for, where the offer may have been listed otherwise decided before (OffersService).
  offerAccepted: 'offer_accepted',
  // remote: an offer request id; CRM: "outside"; hash: when it was seen (ISO). Written once per
  // brokerage: an offer on a request of its account that no deal holds, read while no create of the
  // daemon could have made it. The account makes requests outside the daemon, so a request no deal
  // holds is never taken for a create's whose answer was lost (EvidenceLooks.soleUnclaimedRequest).
  requestOutside: 'offer_request_outside',
  // remote: offer request id; CRM: listing deal id; hash: the inventory property id last written
  // (the create's answer may not carry it; the active list does: RequestStatusService).
  requestInventory: 'offer_request_inventory',
} as const;
