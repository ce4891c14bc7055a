import { Injectable } from '@nestjs/common';
import {
  AddMediaBody,
  Assumption,
  CreateOfferRequestBody,
  isPlainObject,
  OfferRequestRecord,
  UPDATABLE_PROPERTY_FIELDS,
  UpdateOfferRequestBody,
} from '../../src/cash-offer/schema';
import { MediaSigner } from './media.signer';
import { toOfferRequestRecord } from './offer-request.view';
import { RequestLifecycle } from './request.lifecycle';
import { SandboxClock } from './sandbox.clock';
import { badRequest, conflict, forbidden, notFound, readBody } from './sandbox.errors';
import { SandboxStore } from './sandbox.store';
import { SpecReadings } from './spec-readings';
import { SandboxAccount, StoredMedia, StoredOfferRequest } from './sandbox.types';

const CLOSED_FOR_UPDATES = ['closed', 'denied', 'expired'];

// Creating and updating offer requests (POST /offer-requests, PATCH /offer-requests[/{id}]).
@Injectable()
export class OfferRequestService {
  constructor(
    private readonly store: SandboxStore,
    private readonly clock: SandboxClock,
    private readonly signer: MediaSigner,
    private readonly lifecycle: RequestLifecycle,
    private readonly readings: SpecReadings,
  ) {}

  // The account's request holding an external id (spec reading duplicateExternalId).
  private heldBy(caller: SandboxAccount, externalId: string): StoredOfferRequest | undefined {
    for (const r of this.store.requests.values())
      if (r.ownerKey === caller.key && r.offer_request_external_id === externalId) return r;
    return undefined;
  }

  create(caller: SandboxAccount, body: unknown): OfferRequestRecord {
    if (isPlainObject(body) && body.assumptions !== undefined && caller.role !== 'buyer')
      throw forbidden(
        `assumptions are available only to buyer accounts; this key belongs to a ${caller.role}`,
      );
    const b = readBody(CreateOfferRequestBody, body);
    this.assertMediaCount(b.media);
    if (this.readings.current.createRequiredFields === 'listing-facts') assertListingFacts(b);
    const request = b.request;
    if (this.readings.current.externalIdAt === 'body' && request.offer_request_external_id !== undefined)
      throw badRequest('request.offer_request_external_id is not a request field the service knows');
    const externalId = request.offer_request_external_id ?? b.offer_request_external_id ?? null;
    if (externalId !== null && this.readings.current.duplicateExternalId === 'refused') {
      const holder = this.heldBy(caller, externalId);
      if (holder)
        throw conflict(
          `offer_request_external_id "${externalId}" is already used by offer request ${holder.offer_request_id}`,
        );
    }
    const property = { ...b.property };
    const nowMs = this.clock.nowMs();
    const now = new Date(nowMs).toISOString();
    const inventoryPropertyId = this.store.nextPropertyId();
    const assumptions = (b.assumptions ?? []).map((a, i): Assumption => ({
      ...a,
      assumption_id: inventoryPropertyId * 100 + i + 1,
      created_at: now,
      inventory_property_id: inventoryPropertyId,
    }));
    const r: StoredOfferRequest = {
      offer_request_id: this.store.nextRequestId(),
      requested_by_agent: caller.userId,
      submitted_by_user: caller.userId,
      inventory_property_id: inventoryPropertyId,
      offer_requested_at: now,
      requestedAtMs: nowMs,
      offer_requested_decided_by: null,
      offer_request_is_mls: request.offer_request_is_mls ?? null,
      offer_request_deal_type: request.offer_request_deal_type ?? null,
      offer_request_asking: request.offer_request_asking,
      offer_request_expires_at: null,
      offer_request_is_approved: false,
      offer_request_decided_at: null,
      offer_request_viewed_at: null,
      offer_request_refreshed_at: null,
      offer_request_status: 'in_review',
      offer_request_external_id: externalId,
      test: request.test ?? null,
      ownerKey: caller.key,
      property,
      media: this.toMedia(b.media),
      assumptions,
      seeded: false,
    };
    this.store.addRequest(r);
    this.lifecycle.requestCreated(r);
    return toOfferRequestRecord(r);
  }

  // PATCH /offer-requests/{id}: listing-agent fields and media only; nothing applied on refusal.
  update(caller: SandboxAccount, idParam: string, body: unknown): OfferRequestRecord {
    const r = this.ownedRequest(caller, idParam);
    const b =
      this.readings.current.updateBodyShape === 'create-shape'
        ? updatablePartOf(readBody(CreateOfferRequestBody, body))
        : readBody(UpdateOfferRequestBody, body);
    this.assertMediaCount(b.media);
    if (b.offer_request_id !== undefined && b.offer_request_id !== r.offer_request_id)
      throw badRequest(
        `offer_request_id in the body (${JSON.stringify(b.offer_request_id)}) differs from the one in the path (${r.offer_request_id})`,
      );
    this.assertUpdatable(r);
    for (const [name, value] of Object.entries(b.property ?? {})) r.property[name] = value;
    r.propertyJson = undefined;
    r.media.push(...this.toMedia(b.media));
    r.offer_request_refreshed_at = this.clock.nowIso();
    return toOfferRequestRecord(r);
  }

  // PATCH /offer-requests/ with { offer_request_id, media }: adds photos after submission.
  addMedia(caller: SandboxAccount, body: unknown): OfferRequestRecord {
    const b = readBody(AddMediaBody, body);
    this.assertMediaCount(b.media);
    const r = this.ownedRequest(caller, String(b.offer_request_id));
    this.assertUpdatable(r);
    r.media.push(...this.toMedia(b.media));
    r.offer_request_refreshed_at = this.clock.nowIso();
    return toOfferRequestRecord(r);
  }

  ownedRequest(caller: SandboxAccount, idParam: string): StoredOfferRequest {
    const r = this.findRequest(idParam);
    if (r.ownerKey !== caller.key)
      throw forbidden(`offer request ${r.offer_request_id} belongs to another account`);
    return r;
  }

  findRequest(idParam: string): StoredOfferRequest {
    const id = /^\d+$/.test(idParam) ? Number(idParam) : NaN;
    const r = this.store.requests.get(id);
    if (!r) throw notFound(`offer request ${idParam} does not exist`);
    return r;
  }

  private assertUpdatable(r: StoredOfferRequest): void {
    if (CLOSED_FOR_UPDATES.includes(r.offer_request_status))
      throw conflict(
        `offer request ${r.offer_request_id} is ${r.offer_request_status}; it can no longer be updated`,
      );
  }

  // The `maxMediaItems` spec reading (ours: the wire class's 50): more photos in one call are refused
  // whole, in the words of our own validation.
  private assertMediaCount(media: unknown): void {
    const max = this.readings.current.maxMediaItems;
    if (Array.isArray(media) && media.length > max)
      throw badRequest(`media has ${media.length} photos; the service allows ${max}`);
  }

  private toMedia(media: unknown): StoredMedia[] {
    if (!Array.isArray(media)) return [];
    return media.map((url) => ({ token: this.signer.newToken(), url: String(url) }));
  }
}

// `updateBodyShape: create-shape`: of a body checked as a create body, what an update applies (the
// listing-agent fields and media); the rest is ignored.
function updatablePartOf(body: CreateOfferRequestBody): UpdateOfferRequestBody {
  const property: Record<string, unknown> = {};
  for (const field of UPDATABLE_PROPERTY_FIELDS)
    if (body.property[field] !== undefined) property[field] = body.property[field];
  return { property, ...(body.media !== undefined ? { media: body.media } : {}) };
}

// `createRequiredFields: listing-facts`: the property facts a buyer's box matches on, required too.
const LISTING_FACTS = ['BedroomsTotal', 'BathroomsFull', 'LivingArea', 'YearBuilt'] as const;
function assertListingFacts(body: CreateOfferRequestBody): void {
  const property = body.property as Record<string, unknown>;
  const missing = LISTING_FACTS.filter((field) => property[field] === undefined || property[field] === null);
  if (missing.length > 0)
    throw badRequest(missing.map((field) => `property.${field} is required`).join('; '));
}
