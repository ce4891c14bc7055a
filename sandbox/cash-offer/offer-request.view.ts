import { ActiveOfferRequest, OfferRequestRecord } from '../../src/cash-offer/schema';
import { MediaSigner } from './media.signer';
import { SandboxAccount, StoredOfferRequest } from './sandbox.types';

// The offer request record as the API returns it (the quickstart form, with the three ids).
export function toOfferRequestRecord(r: StoredOfferRequest): OfferRequestRecord {
  return {
    offer_request_id: r.offer_request_id,
    requested_by_agent: r.requested_by_agent,
    submitted_by_user: r.submitted_by_user,
    inventory_property_id: r.inventory_property_id,
    offer_requested_at: r.offer_requested_at,
    offer_requested_decided_by: r.offer_requested_decided_by,
    offer_request_is_mls: r.offer_request_is_mls,
    offer_request_deal_type: r.offer_request_deal_type,
    offer_request_asking: r.offer_request_asking,
    offer_request_expires_at: r.offer_request_expires_at,
    offer_request_is_approved: r.offer_request_is_approved,
    offer_request_decided_at: r.offer_request_decided_at,
    offer_request_viewed_at: r.offer_request_viewed_at,
    offer_request_refreshed_at: r.offer_request_refreshed_at,
    offer_request_status: r.offer_request_status,
    offer_request_external_id: r.offer_request_external_id,
    test: r.test,
  };
}

// One item of GET /active-offer-requests, as the viewer may see it: assumptions only for buyers,
// the caller's own identifier only for the owner, media as freshly signed URLs.
export function toActiveItem(
  r: StoredOfferRequest,
  viewer: SandboxAccount,
  signer: MediaSigner,
): ActiveOfferRequest {
  const request: ActiveOfferRequest['request'] = {
    offer_request_id: r.offer_request_id,
    inventory_property_id: r.inventory_property_id,
    offer_request_status: r.offer_request_status,
    offer_requested_at: r.offer_requested_at,
    offer_request_asking: r.offer_request_asking,
    test: r.test,
  };
  if (r.ownerKey === viewer.key) request.offer_request_external_id = r.offer_request_external_id;
  const item: ActiveOfferRequest = {
    request,
    property: r.property,
    media: r.media.map((m) => signer.signedUrl(m.token)),
  };
  if (viewer.role === 'buyer') item.assumptions = r.assumptions;
  return item;
}

// The same item as JSON text, with the property's serialisation cached on the record: the active
// list is the hottest path of the sandbox (benchmarks page through 100k requests).
export function activeItemJson(r: StoredOfferRequest, viewer: SandboxAccount, signer: MediaSigner): string {
  const item = toActiveItem(r, viewer, signer);
  r.propertyJson ??= JSON.stringify(r.property);
  const assumptions = item.assumptions ? `,"assumptions":${JSON.stringify(item.assumptions)}` : '';
  return `{"request":${JSON.stringify(item.request)},"property":${r.propertyJson},"media":${JSON.stringify(item.media)}${assumptions}}`;
}
