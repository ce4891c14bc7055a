import { CashOfferError } from '../../cash-offer';
import type { CreateOfferRequestBody } from '../../cash-offer/schema';

// Where the deal's id goes in a create: the spec says only that `offer_request_external_id` is
// "given on the request" and echoed in offer payloads. Ours: on the request object. A service may
// want it at the top level of the body and refuse it on the request object, or take it nowhere.
// After a refusal that names the field, the create is tried again with it moved, then without it
// (a refused create stored nothing, so trying again is safe); without it the service cannot echo
// it, and a lost create of that brokerage is never taken for absent (OfferRequestLocator).
export type ExternalIdPlacement = 'request' | 'body' | 'none';

const ORDER: readonly ExternalIdPlacement[] = ['request', 'body', 'none'];

export function placeExternalId(
  body: CreateOfferRequestBody,
  placement: ExternalIdPlacement,
): CreateOfferRequestBody {
  const externalId = body.request.offer_request_external_id ?? body.offer_request_external_id;
  const { offer_request_external_id: _onRequest, ...request } = body.request;
  const { offer_request_external_id: _onBody, ...rest } = body;
  if (externalId === undefined || externalId === null || placement === 'none') return { ...rest, request };
  return placement === 'request'
    ? { ...rest, request: { ...request, offer_request_external_id: externalId } }
    : { ...rest, request, offer_request_external_id: externalId };
}

// A refusal by the service whose message names the field: the placement to try next, if any.
export function nextPlacement(error: unknown, tried: ExternalIdPlacement): ExternalIdPlacement | undefined {
  if (!refusesExternalId(error)) return undefined;
  return ORDER[ORDER.indexOf(tried) + 1];
}

export function refusesExternalId(error: unknown): boolean {
  if (!(error instanceof CashOfferError) || error.code !== 'INVALID_RECORD' || error.status === undefined)
    return false;
  return /offer_request_external_id/i.test(saidBy(error)) && !saysExternalIdHeld(error);
}

// A refusal saying the deal's id is already used (whether it must be unique is not shown): the
// service holds a request made with it, by an earlier send whose answer was lost. Never a matter of
// where the id goes: a create sent again without it would be a second request for the deal.
export function saysExternalIdHeld(error: unknown): boolean {
  if (!(error instanceof CashOfferError) || error.status === undefined) return false;
  if (error.code !== 'INVALID_RECORD' && error.code !== 'CONFLICT') return false;
  const said = saidBy(error);
  return /offer_request_external_id/i.test(said) && /\b(already|duplicate|unique|in use)\b/i.test(said);
}

function saidBy(error: CashOfferError): string {
  return error.serviceError?.message ?? error.message;
}
