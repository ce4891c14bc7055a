// The service's request and response bodies as the spec (and docs/spec-decisions.md) describe
// them. Status fields are plain strings: readers must keep values they do not know.

export type PropertyPayload = Record<string, unknown>;

export interface RequestObject {
  offer_request_asking: number;
  test?: boolean | null;
  offer_request_external_id?: string | null;
  offer_request_deal_type?: string | null;
  offer_request_is_mls?: boolean | null;
}

export interface CreateOfferRequestBody {
  request: RequestObject;
  property: PropertyPayload;
  media?: string[];
  assumptions?: Assumption[];
}

export interface UpdateOfferRequestBody {
  property?: PropertyPayload;
  media?: string[];
}

export interface AddMediaBody {
  offer_request_id: number;
  media: string[];
}

export interface OfferRequestRecord {
  offer_request_id?: number;
  requested_by_agent?: string;
  submitted_by_user?: string;
  inventory_property_id: number;
  offer_requested_at: string;
  offer_requested_decided_by?: string | null;
  offer_request_is_mls?: boolean | null;
  offer_request_deal_type?: string | null;
  offer_request_asking: number;
  offer_request_expires_at?: string | null;
  offer_request_is_approved?: boolean | null;
  offer_request_decided_at?: string | null;
  offer_request_viewed_at?: string | null;
  offer_request_refreshed_at?: string | null;
  offer_request_status: string;
  offer_request_external_id?: string | null;
  test?: boolean | null;
}

export interface Assumption {
  assumption_id?: number;
  created_at?: string;
  inventory_property_id?: number;
  [field: string]: unknown;
}

// One item of GET /active-offer-requests. The declared `request` object holds only the asking
// price and `test`; the sandbox adds the request's ids and status (spec-decisions.md), and readers
// must cope with their absence.
export interface ActiveOfferRequest {
  request: RequestObject & {
    offer_request_id?: number;
    inventory_property_id?: number;
    offer_request_status?: string;
    offer_requested_at?: string;
  };
  property: PropertyPayload;
  assumptions?: Assumption[];
  media: string[];
}

export interface ActiveOfferRequestsQuery {
  limit?: number;
  offset?: number;
  sort?: string;
}

export interface PrelimBody {
  inventory: PropertyPayload;
}

export interface PrelimResult {
  buyer_count: number;
  buy_box_count: number;
}

export interface Offer {
  offer_id: number;
  offer_request_id: number;
  offer_request_external_id?: string | null;
  external_id?: string | null;
  offer_amount: number;
  buyer_pays_buyer_broker_commission: boolean;
  buyer_pays_listing_broker_commission: boolean;
  buyer_broker_commission_pct: number;
  buyer_broker_commission_amt?: number;
  listing_broker_commission_pct: number;
  listing_broker_commission_amt?: number;
  created_at: string;
  offer_expires: string;
  offer_memo: string;
  offer_status: string;
  additional_terms?: unknown;
  earnest_money: number;
  em_hard_post_inspection: boolean;
  lease_back: boolean;
  lease_back_period: number;
  flexible_closing: boolean;
  post_possession: boolean;
  post_possession_period: number;
  waive_warranty: boolean;
  inspection_period: number;
  offer_is_counter_offer?: boolean | null;
  offer_decided_at?: string | null;
  test?: boolean | null;
  viewed?: boolean;
  offer_feedback?: unknown;
  // Sandbox extension: the counter offer an accepted-counter offer came from.
  counter_offer_id?: number | null;
}

export interface OfferDecisionBody {
  offer_id: number;
  offer_status: 'accepted' | 'rejected';
}

export interface CounterOfferBody {
  offer_id: number;
  counter_offer_amount: number;
  buyer_pays_buyer_broker_commission?: boolean;
  buyer_pays_listing_broker_commission?: boolean;
  listing_broker_commission_pct?: number;
  counter_offer_memo?: string;
  counter_offer_expires?: string;
  counter_offer_terms?: Record<string, unknown> | null;
  counter_offer_status?: string;
  counter_earnest_money?: number;
  counter_em_hard_post_inspection?: boolean;
  counter_lease_back?: boolean;
  counter_lease_back_period?: number;
  counter_flexible_closing?: boolean;
  counter_post_possession?: boolean;
  counter_waive_warranty?: boolean;
  counter_inspection_period?: number;
  counter_post_possession_period?: number;
  test?: boolean;
}

export interface CounterOffer extends CounterOfferBody {
  counter_offer_id: number;
  offer_request_id: number;
  counter_offer_status: string;
  created_at: string;
}

export interface BuyerLeadBody {
  first_name: string;
  last_name: string;
  primary_email?: string;
  primary_phone?: string;
  property_address: { offer_request_id: number; inventory_property_id?: number };
}

export interface BuyerLead {
  created_at: string;
  lead_id: string;
  first_name: string;
  last_name: string;
  primary_email?: string;
  primary_phone?: string;
  api_partner_user_id: string;
  inventory_property_id: number;
  offer_request_id: number;
}

export interface PushToMarketplaceBody {
  request: { inventory_property_id: number; expiration_date?: string | null };
}

export interface PushToMarketplaceResult {
  success: boolean;
  message: string;
  inventory_property_id: number;
}

export interface WebhookConfig {
  url: string;
}

export interface ServiceErrorBody {
  error: number;
  message: string;
}

// Webhook deliveries.
export interface OfferRequestApprovedEvent {
  event: 'offer_request_approved';
  offer_request_id: number;
  offer_request_status: string;
}

export type NewOfferEvent = { event: 'new_offer' } & Offer;

// The counter-rejection callback; its payload is "not shown", this is our decision.
export interface OfferUpdateEvent {
  event: 'UPDATE';
  update_type: 'counter_offer_rejected';
  counter_offer_id: number;
  offer_id: number;
  offer_request_id: number;
  offer_request_external_id?: string | null;
  counter_offer_status: string;
  updated_at: string;
}

export type ServiceEvent = OfferRequestApprovedEvent | NewOfferEvent | OfferUpdateEvent;
