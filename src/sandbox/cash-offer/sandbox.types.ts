import type { Assumption, CounterOffer } from '../../cash-offer/schema';

export type SandboxRole = 'listing_agent' | 'partner' | 'buyer';

export interface SandboxAccount {
  key: string;
  role: SandboxRole;
  userId: string;
  email: string;
  name?: string;
}

export interface CashOfferSandboxOptions {
  port?: number; // 0 = pick a free one; default 0
  host?: string; // default '127.0.0.1'
  accounts?: SandboxAccount[]; // default: from config/sandbox-accounts.json + env keys
  autopilot?: boolean; // simulated buyers make offers on approved requests, auto-approve new requests
  webhookRetryDelaysMs?: number[]; // default [1000,2000,4000,8000,16000]; tests pass small values
  webhookTimeoutMs?: number; // default 5000
  // Extension: how long after POST /push-to-marketplace the background processing runs (default 1000).
  pushDelayMs?: number;
}

export interface RunningCashOfferSandbox {
  url: string; // http://127.0.0.1:PORT
  baseUrl: string; // url + '/api/v2'
  controlUrl: string; // url + '/__control'
  port: number;
  agentKey: string;
  buyerKey: string;
  close(): Promise<void>;
}

export interface StoredMedia {
  token: string;
  url: string;
}

export interface StoredOfferRequest {
  offer_request_id: number;
  requested_by_agent: string;
  submitted_by_user: string;
  inventory_property_id: number;
  offer_requested_at: string;
  requestedAtMs: number;
  offer_requested_decided_by: string | null;
  offer_request_is_mls: boolean | null;
  offer_request_deal_type: string | null;
  offer_request_asking: number;
  offer_request_expires_at: string | null;
  offer_request_is_approved: boolean | null;
  offer_request_decided_at: string | null;
  offer_request_viewed_at: string | null;
  offer_request_refreshed_at: string | null;
  offer_request_status: string;
  offer_request_external_id: string | null;
  test: boolean | null;
  ownerKey: string;
  property: Record<string, unknown>;
  media: StoredMedia[];
  assumptions: Assumption[];
  // The property serialised once for the active list; cleared whenever the property changes.
  propertyJson?: string;
  // Requests made by seed-active are left alone by the autopilot (it would have 100k to visit).
  seeded: boolean;
}

export interface StoredOffer {
  offer_id: number;
  offer_request_id: number;
  external_id: string | null;
  offer_amount: number;
  buyer_pays_buyer_broker_commission: boolean;
  buyer_pays_listing_broker_commission: boolean;
  buyer_broker_commission_pct: number;
  listing_broker_commission_pct: number;
  created_at: string;
  offer_expires: string;
  offer_memo: string;
  offer_status: string;
  additional_terms: unknown;
  earnest_money: number;
  em_hard_post_inspection: boolean;
  lease_back: boolean;
  lease_back_period: number;
  flexible_closing: boolean;
  post_possession: boolean;
  post_possession_period: number;
  waive_warranty: boolean;
  inspection_period: number;
  offer_is_counter_offer: boolean | null;
  offer_decided_at: string | null;
  test: boolean | null;
  viewed: boolean;
  offer_feedback: unknown;
  counter_offer_id: number | null;
  buyerName: string;
}

export type StoredCounterOffer = CounterOffer & { updated_at: string | null };

export interface StoredBuyerLead {
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

export interface EmailRecord {
  id: number;
  to: string;
  subject: string;
  text: string;
  kind: 'offer_request_approved' | 'new_offer' | 'offer_accepted';
  offer_request_id: number;
  offer_id?: number;
  sent_at: string;
}

export interface WebhookDeliveryRecord {
  delivery_id: number;
  attempt: number;
  url: string;
  event: Record<string, unknown>;
  status: number | null;
  error: string | null;
  at: string;
  // 'sent' for an attempt that went out; 'dropped' when a fault swallowed the event.
  outcome: 'delivered' | 'failed' | 'dropped' | 'gave_up';
  duplicate: boolean;
}

export interface CallRecord {
  method: string;
  path: string;
  status: number;
  at: string;
  duration_ms: number;
  fault?: string;
}
