import { randomUUID } from 'node:crypto';
import {
  ACTIVE_LIST_DEFAULT_LIMIT,
  ACTIVE_LIST_MAX_LIMIT,
  ACTIVE_LIST_SORTS,
  ActiveOfferRequest,
  BuyerLead,
  BuyerLeadBody,
  PushToMarketplaceBody,
  PushToMarketplaceResult,
} from '../../src/cash-offer/schema';
import { ActiveSortKey } from './active.index';
import { MediaSigner } from './media.signer';
import { activeItemJson, toActiveItem } from './offer-request.view';
import { RequestLifecycle } from './request.lifecycle';
import { SandboxClock } from './sandbox.clock';
import { badRequest, conflict, forbidden, notFound, readBody } from './sandbox.errors';
import { SandboxStore } from './sandbox.store';
import { SandboxAccount } from './sandbox.types';
import { SpecReadings } from './spec-readings';

const ACTIVE_QUERY_PARAMS = ['limit', 'offset', 'sort'];

// The marketplace side: the active list, push to marketplace, and buyer leads.
export class MarketplaceService {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly store: SandboxStore,
    private readonly clock: SandboxClock,
    private readonly signer: MediaSigner,
    private readonly lifecycle: RequestLifecycle,
    private readonly readings: SpecReadings,
    private readonly pushDelayMs: number,
  ) {}

  // The page as JSON text (see activeItemJson).
  activePageJson(caller: SandboxAccount, query: URLSearchParams): string {
    const { key, descending, offset, limit } = this.parseActiveQuery(query);
    const items = this.store.active.page(key, descending, offset, limit);
    return `[${items.map((r) => activeItemJson(r, caller, this.signer)).join(',')}]`;
  }

  activePage(caller: SandboxAccount, query: URLSearchParams): ActiveOfferRequest[] {
    const { key, descending, offset, limit } = this.parseActiveQuery(query);
    return this.store.active
      .page(key, descending, offset, limit)
      .map((r) => toActiveItem(r, caller, this.signer));
  }

  private parseActiveQuery(query: URLSearchParams): {
    key: ActiveSortKey;
    descending: boolean;
    offset: number;
    limit: number;
  } {
    const problems: string[] = [];
    for (const name of query.keys())
      if (!ACTIVE_QUERY_PARAMS.includes(name))
        problems.push(`${name} is not a query parameter of GET /active-offer-requests (limit, offset, sort)`);
    const int = (name: string, min: number, max: number, fallback: number): number => {
      const raw = query.get(name);
      if (raw === null) return fallback;
      const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
      if (!(n >= min && n <= max))
        problems.push(`${name} must be a whole number from ${min} to ${max}; got "${raw}"`);
      return n;
    };
    const limit = int('limit', 1, ACTIVE_LIST_MAX_LIMIT, ACTIVE_LIST_DEFAULT_LIMIT);
    const offset = int('offset', 0, 2_147_483_647, 0);
    const sort = query.get('sort') ?? 'offer_requested_at.desc';
    const sorts: readonly string[] = ACTIVE_LIST_SORTS;
    if (!sorts.includes(sort)) problems.push(`sort must be one of ${sorts.join(', ')}; got "${sort}"`);
    if (problems.length > 0) throw badRequest(problems.join('; '));
    const [key, direction] = sort.split('.') as [ActiveSortKey, string];
    return { key, descending: direction === 'desc', offset, limit };
  }

  // Answers at once; the request becomes active about pushDelayMs later ("processed in the background").
  push(caller: SandboxAccount, body: unknown): PushToMarketplaceResult {
    const req = readBody(PushToMarketplaceBody, body).request;
    const propertyId = req.inventory_property_id;
    const expiration = req.expiration_date ?? null;
    if (expiration !== null && Date.parse(expiration) <= this.clock.nowMs())
      throw badRequest(
        `request.expiration_date ${expiration} is in the past; give a future date-time or null`,
      );
    const r = this.store.requestsByProperty.get(propertyId);
    if (!r) throw notFound(`property ${propertyId} does not exist`);
    if (r.ownerKey !== caller.key) throw forbidden(`property ${propertyId} belongs to another account`);
    if (['denied', 'under_contract', 'closed'].includes(r.offer_request_status))
      throw conflict(
        `offer request ${r.offer_request_id} of property ${propertyId} is ${r.offer_request_status}; it cannot be pushed to the marketplace`,
      );
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.processPush(r.offer_request_id, expiration);
    }, this.pushDelayMs);
    this.timers.add(timer);
    return {
      success: true,
      message: 'The property will be posted to the marketplace shortly',
      inventory_property_id: propertyId,
    };
  }

  private processPush(requestId: number, expiration: string | null): void {
    const r = this.store.requests.get(requestId);
    if (!r) return;
    const status = r.offer_request_status;
    if (status === 'in_review' || status === 'processing') this.lifecycle.apply(r, 'approve', expiration);
    else if (status === 'expired') this.lifecycle.apply(r, 'renew', expiration);
    else if (this.lifecycle.isActive(r)) {
      r.offer_request_expires_at = expiration ?? r.offer_request_expires_at;
      r.offer_request_refreshed_at = this.clock.nowIso();
    }
  }

  buyerLead(caller: SandboxAccount, body: unknown): BuyerLead {
    if (caller.role === 'listing_agent')
      throw forbidden(
        'buyer leads can be submitted only by buyer and partner accounts; this key belongs to a listing agent',
      );
    const b = readBody(BuyerLeadBody, body);
    if (this.readings.current.leadRequiredFields === 'all') assertLeadComplete(b);
    const r = this.store.requests.get(b.property_address.offer_request_id);
    if (!r) throw notFound(`offer request ${b.property_address.offer_request_id} does not exist`);
    const givenProperty = b.property_address.inventory_property_id;
    if (givenProperty !== undefined && givenProperty !== r.inventory_property_id)
      throw badRequest(
        `property_address.inventory_property_id ${givenProperty} is not the property of offer request ${r.offer_request_id} (${r.inventory_property_id})`,
      );
    if (!this.lifecycle.isActive(r))
      throw conflict(
        `offer request ${r.offer_request_id} is ${r.offer_request_status}; leads are taken only on active requests`,
      );
    const lead: BuyerLead = {
      created_at: this.clock.nowIso(),
      lead_id: randomUUID(),
      first_name: b.first_name,
      last_name: b.last_name,
      primary_email: b.primary_email,
      primary_phone: b.primary_phone,
      api_partner_user_id: caller.userId,
      inventory_property_id: r.inventory_property_id,
      offer_request_id: r.offer_request_id,
    };
    this.store.leads.push(lead);
    return lead;
  }

  cancelPending(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}

// `leadRequiredFields: all`: every request field of the spec's lead table must be given.
const LEAD_FIELDS = ['first_name', 'last_name', 'primary_email', 'primary_phone'] as const;
function assertLeadComplete(lead: BuyerLeadBody): void {
  const missing: string[] = LEAD_FIELDS.filter((field) => !lead[field]);
  if (lead.property_address.inventory_property_id === undefined)
    missing.push('property_address.inventory_property_id');
  if (missing.length > 0) throw badRequest(missing.map((field) => `${field} is required`).join('; '));
}
