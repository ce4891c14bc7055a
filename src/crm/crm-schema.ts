import type { CrmKind } from './crm.types';
import type { CrmPropertySpec, CrmPropertyType, CrmSchemaSpec } from './crm-schema.types';

// Everything the seller-side and buyer-side flows read or write in the CRM.
// Offer records and marketplace records are deals in their own pipelines: every CRM tier has
// deals, not every tier has custom objects.
export const CASH_OFFER_GROUP = 'cash_offer';

// The three unique-value keys that make every daemon write an idempotent upsert.
export const UNIQUE_REQUEST_ID = 'cash_offer_request_id';
export const UNIQUE_OFFER_ID = 'cash_offer_offer_id';
export const UNIQUE_LISTING_KEY = 'cash_offer_listing_key';

// The listing deal's "Request cash offer" checkbox: the trigger when a brokerage configures none.
export const REQUEST_TRIGGER_PROPERTY = 'cash_offer_request_trigger';

export const CASH_OFFERS_PIPELINE = 'cash_offers';
export const MARKETPLACE_PIPELINE = 'marketplace';

type Row = [name: string, type: CrmPropertyType, label: string];

const LISTING_DEAL: Row[] = [
  [REQUEST_TRIGGER_PROPERTY, 'bool', 'Request cash offer'],
  [UNIQUE_REQUEST_ID, 'string', 'Cash offer request id'],
  ['cash_offer_inventory_property_id', 'string', 'Cash offer inventory property id'],
  ['cash_offer_request_status', 'string', 'Cash offer request status'],
  ['cash_offer_request_submitted_at', 'datetime', 'Cash offer request submitted at'],
  ['cash_offer_prelim_buyer_count', 'number', 'Matching buyers (preliminary)'],
  ['cash_offer_prelim_buy_box_count', 'number', 'Matching buy boxes (preliminary)'],
  ['cash_offer_sync_error', 'text', 'Cash offer sync error'],
  ['cash_offer_push_to_marketplace', 'bool', 'Push to marketplace'],
  ['cash_offer_marketplace_expiration', 'datetime', 'Marketplace expiration'],
  ['cash_offer_push_result', 'text', 'Push to marketplace result'],
  ['cash_offer_demand_check', 'bool', 'Check buyer demand'],
  ['cash_offer_offer_count', 'number', 'Cash offers received'],
  ['cash_offer_best_offer', 'number', 'Best cash offer'],
  // Photo URLs sent with the offer request (one per line); added ones go out with PATCH /offer-requests/.
  ['cash_offer_photo_urls', 'text', 'Photo links for the cash offer request'],
  // Checked by the agent (or shown for a test-mode brokerage): the request goes out with `test: true`.
  ['cash_offer_test_record', 'bool', 'Cash offer test record'],
];

const OFFER_RECORD: Row[] = [
  [UNIQUE_OFFER_ID, 'string', 'Cash offer id'],
  ['cash_offer_offer_request_ref', 'string', 'Offer request id of this offer'],
  ['cash_offer_offer_amount', 'number', 'Offer amount'],
  ['cash_offer_offer_status', 'string', 'Offer status'],
  ['cash_offer_buyer_pays_buyer_broker_commission', 'bool', 'Buyer pays buyer broker commission'],
  ['cash_offer_buyer_pays_listing_broker_commission', 'bool', 'Buyer pays listing broker commission'],
  ['cash_offer_buyer_broker_commission_pct', 'number', 'Buyer broker commission %'],
  ['cash_offer_buyer_broker_commission_amt', 'number', 'Buyer broker commission amount'],
  ['cash_offer_listing_broker_commission_pct', 'number', 'Listing broker commission %'],
  ['cash_offer_listing_broker_commission_amt', 'number', 'Listing broker commission amount'],
  ['cash_offer_seller_net', 'number', 'Seller nets'],
  ['cash_offer_buyer_cost', 'number', 'Buyer pays'],
  ['cash_offer_offer_created_at', 'datetime', 'Offer made at'],
  ['cash_offer_offer_expires', 'datetime', 'Offer expires'],
  ['cash_offer_offer_memo', 'text', 'Offer memo'],
  ['cash_offer_additional_terms', 'text', 'Additional terms'],
  ['cash_offer_earnest_money', 'number', 'Earnest money'],
  ['cash_offer_em_hard_post_inspection', 'bool', 'Earnest money hard after inspection'],
  ['cash_offer_lease_back', 'bool', 'Lease back'],
  ['cash_offer_lease_back_period', 'number', 'Lease back period (days)'],
  ['cash_offer_flexible_closing', 'bool', 'Flexible closing'],
  ['cash_offer_post_possession', 'bool', 'Post possession'],
  ['cash_offer_post_possession_period', 'number', 'Post possession period (days)'],
  ['cash_offer_waive_warranty', 'bool', 'Waive warranty'],
  ['cash_offer_inspection_period', 'number', 'Inspection period (days)'],
  ['cash_offer_is_counter_offer', 'bool', 'Is a counter offer'],
  ['cash_offer_offer_decided_at', 'datetime', 'Offer decided at'],
  ['cash_offer_offer_test', 'bool', 'Test offer'],
  ['cash_offer_counter_offer_id', 'string', 'Counter offer id'],
  ['cash_offer_counter_status', 'string', 'Counter offer status'],
  // Filled by the agent before moving the record to "counter requested".
  ['cash_offer_counter_amount', 'number', 'Counter amount'],
  ['cash_offer_counter_buyer_pays_buyer_broker_commission', 'bool', 'Counter: buyer pays buyer broker'],
  ['cash_offer_counter_buyer_pays_listing_broker_commission', 'bool', 'Counter: buyer pays listing broker'],
  ['cash_offer_counter_listing_broker_commission_pct', 'number', 'Counter: listing broker commission %'],
  ['cash_offer_counter_memo', 'text', 'Counter memo'],
  ['cash_offer_counter_expires', 'datetime', 'Counter expires'],
  ['cash_offer_counter_terms', 'text', 'Counter terms'],
  ['cash_offer_counter_earnest_money', 'number', 'Counter earnest money'],
  ['cash_offer_counter_em_hard_post_inspection', 'bool', 'Counter: earnest money hard after inspection'],
  ['cash_offer_counter_lease_back', 'bool', 'Counter: lease back'],
  ['cash_offer_counter_lease_back_period', 'number', 'Counter: lease back period (days)'],
  ['cash_offer_counter_flexible_closing', 'bool', 'Counter: flexible closing'],
  ['cash_offer_counter_post_possession', 'bool', 'Counter: post possession'],
  ['cash_offer_counter_post_possession_period', 'number', 'Counter: post possession period (days)'],
  ['cash_offer_counter_waive_warranty', 'bool', 'Counter: waive warranty'],
  ['cash_offer_counter_inspection_period', 'number', 'Counter: inspection period (days)'],
  ['cash_offer_decision_error', 'text', 'Decision error'],
];

const MARKETPLACE_RECORD: Row[] = [
  [UNIQUE_LISTING_KEY, 'string', 'Marketplace listing key'],
  ['cash_offer_listing_request_id', 'string', 'Marketplace offer request id'],
  ['cash_offer_listing_inventory_id', 'string', 'Marketplace inventory property id'],
  ['cash_offer_listing_status', 'string', 'Marketplace request status'],
  ['cash_offer_listing_asking', 'number', 'Asking price'],
  ['cash_offer_listing_address', 'string', 'Address'],
  ['cash_offer_listing_city', 'string', 'City'],
  ['cash_offer_listing_state', 'string', 'State'],
  ['cash_offer_listing_postal_code', 'string', 'Postal code'],
  ['cash_offer_listing_beds', 'number', 'Bedrooms'],
  ['cash_offer_listing_baths', 'number', 'Bathrooms'],
  ['cash_offer_listing_area', 'number', 'Living area (sq ft)'],
  ['cash_offer_listing_year', 'number', 'Year built'],
  ['cash_offer_listing_condition', 'string', 'Condition'],
  ['cash_offer_listing_photos', 'text', 'Photo links (refreshed each pass)'],
  ['cash_offer_listing_photos_refreshed_at', 'datetime', 'Photo links refreshed at'],
  ['cash_offer_listing_assumptions', 'text', 'Analyst assumptions'],
];

const BUYER_CONTACT: Row[] = [
  ['cash_offer_submit_lead', 'bool', 'Submit as buyer lead'],
  ['cash_offer_lead_id', 'string', 'Buyer lead id'],
  ['cash_offer_lead_submitted_at', 'datetime', 'Buyer lead submitted at'],
  ['cash_offer_lead_error', 'text', 'Buyer lead error'],
];

const UNIQUE = new Set([UNIQUE_REQUEST_ID, UNIQUE_OFFER_ID, UNIQUE_LISTING_KEY]);

function properties(kind: CrmKind, rows: Row[]): CrmPropertySpec[] {
  return rows.map(([name, type, label]) => ({
    kind,
    name,
    label,
    type,
    group: CASH_OFFER_GROUP,
    ...(UNIQUE.has(name) ? { unique: true } : {}),
  }));
}

export const CASH_OFFER_CRM_SCHEMA: CrmSchemaSpec = {
  groups: [
    { kind: 'deal', name: CASH_OFFER_GROUP, label: 'Cash Offer' },
    { kind: 'contact', name: CASH_OFFER_GROUP, label: 'Cash Offer' },
  ],
  properties: [
    ...properties('deal', LISTING_DEAL),
    ...properties('deal', OFFER_RECORD),
    ...properties('deal', MARKETPLACE_RECORD),
    ...properties('contact', BUYER_CONTACT),
  ],
  pipelines: [
    {
      kind: 'deal',
      key: CASH_OFFERS_PIPELINE,
      label: 'Cash offers',
      stages: [
        { key: 'incoming', label: 'Incoming' },
        { key: 'accept_requested', label: 'Accept requested' },
        { key: 'accepted', label: 'Accepted', closed: 'won' },
        { key: 'reject_requested', label: 'Reject requested' },
        { key: 'rejected', label: 'Rejected', closed: 'lost' },
        { key: 'counter_requested', label: 'Counter requested' },
        { key: 'countered', label: 'Countered' },
        { key: 'counter_rejected', label: 'Counter rejected', closed: 'lost' },
        // An offer nobody decided before offer_expires (offer clocks, docs/crm-mapping.md).
        { key: 'expired', label: 'Expired', closed: 'lost' },
      ],
    },
    {
      kind: 'deal',
      key: MARKETPLACE_PIPELINE,
      label: 'Cash offer marketplace',
      stages: [
        { key: 'active', label: 'Active' },
        { key: 'no_longer_listed', label: 'No longer listed', closed: 'lost' },
      ],
    },
  ],
};
