import type { CreateOfferRequestBody, FieldViolation, UpdateOfferRequestBody } from '../../cash-offer/schema';
import { UPDATABLE_PROPERTY_FIELDS } from '../../cash-offer/schema';
import { canonicalJson } from '../../common/canonical-json';
import { updatableFields } from '../common/updatable-fields';

export interface RequestUpdatePlan {
  // PATCH /offer-requests/{id} body: the listing-agent fields as the deal has them now (null clears).
  update: UpdateOfferRequestBody;
  // Photo links added since submission: sent with PATCH /offer-requests/ (the service appends them).
  newMedia: string[];
  // Edits the service does not accept after submission, each named, to show on the deal.
  notUpdatable: FieldViolation[];
}

const UPDATABLE: ReadonlySet<string> = new Set(UPDATABLE_PROPERTY_FIELDS);

// The deal as submitted (the create command's body) and as it is now -> what may be sent, and
// what changed but cannot be.
export function planRequestUpdate(
  sent: CreateOfferRequestBody,
  current: CreateOfferRequestBody,
): RequestUpdatePlan {
  const notUpdatable: FieldViolation[] = [];
  const fields = new Set([...Object.keys(sent.property), ...Object.keys(current.property)]);
  for (const field of [...fields].sort()) {
    if (UPDATABLE.has(field)) continue;
    const before = sent.property[field];
    const now = current.property[field];
    if (canonicalJson(before ?? null) === canonicalJson(now ?? null)) continue;
    notUpdatable.push({
      field: `property.${field}`,
      message: `${field} changed after submission (sent ${show(before)}, now ${show(now)}); the Cash Offer service does not accept changes to it, so it was not sent`,
    });
  }
  if (sent.request.offer_request_asking !== current.request.offer_request_asking) {
    notUpdatable.push({
      field: 'request.offer_request_asking',
      message: `the asking price changed after submission (sent ${show(sent.request.offer_request_asking)}, now ${show(current.request.offer_request_asking)}); the Cash Offer service does not accept changes to it, so it was not sent`,
    });
  }
  const sentMedia = new Set(sent.media ?? []);
  const currentMedia = current.media ?? [];
  const removed = [...sentMedia].filter((url) => !currentMedia.includes(url));
  if (removed.length > 0) {
    notUpdatable.push({
      field: 'media',
      message: `${removed.length} photo link(s) were removed after submission (${removed.join(', ')}); the Cash Offer service keeps photos once added, so they stay on the request`,
    });
  }
  return {
    update: { property: updatableFields(current.property) },
    newMedia: currentMedia.filter((url) => !sentMedia.has(url)),
    notUpdatable,
  };
}

function show(value: unknown): string {
  return value === undefined || value === null || value === '' ? 'nothing' : JSON.stringify(value);
}
