import type { SpecReadingValues } from './spec-readings';
import type {
  Assumption,
  BuyerLead,
  CounterOffer,
  Offer,
  OfferRequestRecord,
  PropertyPayload,
} from '../../src/cash-offer/schema';

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
  // How the sandbox answers where the spec says "not shown" (spec-readings.ts); default: the
  // environment's SANDBOX_SPEC_READINGS, then docs/spec-decisions.md.
  specReadings?: Partial<SpecReadingValues>;
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

// A request as the sandbox keeps it: the wire record (every field present) plus what it needs
// to serve it.
export type StoredOfferRequest = Required<OfferRequestRecord> & {
  requestedAtMs: number;
  ownerKey: string;
  property: PropertyPayload;
  media: StoredMedia[];
  assumptions: Assumption[];
  // The property serialised once for the active list; cleared whenever the property changes.
  propertyJson?: string;
  // Requests made by seed-active are left alone by the autopilot (it would have 100k to visit).
  seeded: boolean;
};

// An offer as the sandbox keeps it: the wire offer without what is derived when it is shown
// (commission amounts, the request's external id), plus the simulated buyer's name.
export type StoredOffer = Omit<
  Offer,
  'buyer_broker_commission_amt' | 'listing_broker_commission_amt' | 'offer_request_external_id'
> & { buyerName: string };

export type StoredCounterOffer = CounterOffer & { updated_at: string | null };

export type StoredBuyerLead = BuyerLead;

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
