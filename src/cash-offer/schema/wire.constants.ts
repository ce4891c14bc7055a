// Values of the wire that are not fields: status vocabularies, limits, paging.

// Statuses the spec declares, plus the two values its samples carry (in_review after create,
// receiving_offers in the offer_request_approved event). Readers keep unknown values as they are.
export const DECLARED_OFFER_REQUEST_STATUSES = [
  'in_submission',
  'initial_offer',
  'active',
  'expired',
  'denied',
  'under_contract',
  'closed',
  'processing',
] as const;
export const SAMPLE_OFFER_REQUEST_STATUSES = ['in_review', 'receiving_offers'] as const;
export const KNOWN_OFFER_REQUEST_STATUSES = [
  ...DECLARED_OFFER_REQUEST_STATUSES,
  ...SAMPLE_OFFER_REQUEST_STATUSES,
] as const;

// active/accepted/rejected are declared; countered and expired are our decision (spec-decisions.md).
export const KNOWN_OFFER_STATUSES = ['active', 'accepted', 'rejected', 'countered', 'expired'] as const;
export const OFFER_DECISIONS = ['accepted', 'rejected'] as const;

export const BUYER_BROKER_COMMISSION_PCT = 3;

// Not shown in the spec; our limits (spec-decisions.md "Media").
export const MEDIA_MAX_ITEMS = 50;
export const MEDIA_URL_MAX_LENGTH = 2048;
export const SIGNED_MEDIA_URL_TTL_MS = 10 * 60 * 1000;

// GET /active-offer-requests paging (default limit 10, max our decision).
export const ACTIVE_LIST_DEFAULT_LIMIT = 10;
export const ACTIVE_LIST_MAX_LIMIT = 100;
export const ACTIVE_LIST_SORTS = [
  'offer_requested_at.desc',
  'offer_requested_at.asc',
  'offer_request_asking.desc',
  'offer_request_asking.asc',
  'offer_request_id.desc',
  'offer_request_id.asc',
] as const;
