import { FieldTable } from './field-spec';

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
export const COUNTER_OFFER_STATUSES = ['pending', 'accepted', 'rejected'] as const;

export const BUYER_BROKER_COMMISSION_PCT = 3;

export const REQUEST_FIELDS: FieldTable = {
  offer_request_asking: { type: 'integer', min: 1 },
  test: { type: 'boolean', nullable: true },
  offer_request_external_id: { type: 'string', maxLength: 255, nullable: true },
  offer_request_deal_type: { type: 'string', maxLength: 50, nullable: true },
  offer_request_is_mls: { type: 'boolean', nullable: true },
};

export const COUNTER_OFFER_FIELDS: FieldTable = {
  offer_id: { type: 'integer', min: 1 },
  counter_offer_amount: { type: 'number', min: 1 },
  buyer_pays_buyer_broker_commission: { type: 'boolean' },
  buyer_pays_listing_broker_commission: { type: 'boolean' },
  listing_broker_commission_pct: { type: 'number', min: 0 },
  counter_offer_memo: { type: 'string', maxLength: 2000 },
  counter_offer_expires: { type: 'datetime' },
  counter_offer_terms: { type: 'object', nullable: true },
  counter_offer_status: { type: 'string', enum: COUNTER_OFFER_STATUSES },
  counter_earnest_money: { type: 'number', min: 0 },
  counter_em_hard_post_inspection: { type: 'boolean' },
  counter_lease_back: { type: 'boolean' },
  counter_lease_back_period: { type: 'number', min: 0 },
  counter_flexible_closing: { type: 'boolean' },
  counter_post_possession: { type: 'boolean' },
  counter_waive_warranty: { type: 'boolean' },
  counter_inspection_period: { type: 'number', min: 0 },
  counter_post_possession_period: { type: 'number', min: 0 },
  test: { type: 'boolean' },
};
export const COUNTER_OFFER_REQUIRED = ['offer_id', 'counter_offer_amount'] as const;

export const BUYER_LEAD_FIELDS: FieldTable = {
  first_name: { type: 'string', maxLength: 100 },
  last_name: { type: 'string', maxLength: 100 },
  primary_email: { type: 'string', maxLength: 254 },
  primary_phone: { type: 'string', maxLength: 32 },
  property_address: { type: 'object' },
};
export const BUYER_LEAD_REQUIRED = ['first_name', 'last_name', 'property_address'] as const;

export const BUYER_LEAD_PROPERTY_ADDRESS_FIELDS: FieldTable = {
  offer_request_id: { type: 'integer', min: 1 },
  inventory_property_id: { type: 'integer', min: 1 },
};

export const OFFER_DECISION_FIELDS: FieldTable = {
  offer_id: { type: 'integer', min: 1 },
  offer_status: { type: 'string', enum: OFFER_DECISIONS },
};

export const PUSH_TO_MARKETPLACE_REQUEST_FIELDS: FieldTable = {
  inventory_property_id: { type: 'integer', min: 1 },
  expiration_date: { type: 'datetime', nullable: true },
};

export const WEBHOOK_CONFIG_FIELDS: FieldTable = {
  url: { type: 'string', maxLength: 2048 },
};

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
