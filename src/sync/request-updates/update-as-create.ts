import { fieldsNamed } from '../../cash-offer/fields-named';
import type { CreateOfferRequestBody, UpdateOfferRequestBody } from '../../cash-offer/schema';
import { PROPERTY_FIELDS } from '../../cash-offer/schema';

// The spec gives PATCH /offer-requests/{id} the body "same shape as the create body" and says "only
// these values can be updated"; what a service does with the others is not shown. We send only the
// listing-agent fields. A service that checks the body as a create body refuses that, naming the
// create's required fields (docs/spec-decisions.md, "Other readings"). Such a refusal is answered
// with the request as it was submitted, carrying the listing-agent fields as the deal has them now:
// nothing in it differs from what the service holds but those.

// The refusal speaks of create fields the update left out: the request object, or a property field.
export function refusalWantsCreateShape(update: UpdateOfferRequestBody, message: string): boolean {
  const sent = (update.property ?? {}) as Record<string, unknown>;
  const namesProperty = fieldsNamed(message, Object.keys(PROPERTY_FIELDS)).some(
    (field) => sent[field] === undefined,
  );
  return namesProperty || (/\brequest\b/.test(message) && /required|missing/i.test(message));
}

// The submitted create body with the update's listing-agent fields; without media (photos go by
// their own call), assumptions, or the caller's external id (fixed at creation, and a service may
// take it in only one place).
export function updateAsCreate(
  update: UpdateOfferRequestBody,
  submitted: CreateOfferRequestBody,
): CreateOfferRequestBody {
  const { offer_request_external_id: _external, ...request } = submitted.request;
  return {
    request,
    property: { ...submitted.property, ...(update.property ?? {}) },
  };
}
