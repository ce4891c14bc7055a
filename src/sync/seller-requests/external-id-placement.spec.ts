import { CashOfferError } from '../../cash-offer';
import type { CreateOfferRequestBody } from '../../cash-offer/schema';
import { nextPlacement, placeExternalId, saysExternalIdHeld } from './external-id-placement';

const body = {
  request: { offer_request_asking: 300_000, offer_request_external_id: 'deal-7' },
  property: {
    StreetNumber: '1',
    StreetName: 'Main',
    PostalCity: 'Austin',
    StateOrProvince: 'TX',
    PostalCode: '78701',
    MlsStatus: 'Active',
  },
} as CreateOfferRequestBody;

const refusal = (message: string, status = 400) =>
  new CashOfferError({
    code: 'INVALID_RECORD',
    operation: 'createOfferRequest',
    status,
    serviceError: { error: status, message },
    message: `createOfferRequest: the service refused the record (${status}): ${message}`,
  });

describe('placeExternalId', () => {
  it('puts the deal id on the request object, beside it, or nowhere, and changes nothing else', () => {
    expect(placeExternalId(body, 'request')).toEqual(body);
    expect(placeExternalId(body, 'body')).toEqual({
      request: { offer_request_asking: 300_000 },
      property: body.property,
      offer_request_external_id: 'deal-7',
    });
    expect(placeExternalId(body, 'none')).toEqual({
      request: { offer_request_asking: 300_000 },
      property: body.property,
    });
    // From any placement to any other.
    expect(placeExternalId(placeExternalId(body, 'body'), 'request')).toEqual(body);
  });
});

describe('nextPlacement', () => {
  it('moves on only after a refusal that names the field: beside the request object, then without it', () => {
    const named = refusal('request.offer_request_external_id is not a request field the service knows');
    expect(nextPlacement(named, 'request')).toBe('body');
    expect(nextPlacement(refusal('offer_request_external_id: unknown field', 422), 'body')).toBe('none');
    expect(nextPlacement(named, 'none')).toBeUndefined();
  });

  it('leaves every other refusal, a conflict or an outage to the create as before', () => {
    expect(nextPlacement(refusal('property.PostalCode is required'), 'request')).toBeUndefined();
    const outage = new CashOfferError({
      code: 'UNAVAILABLE',
      operation: 'x',
      status: 503,
      message: 'offer_request_external_id',
    });
    expect(nextPlacement(outage, 'request')).toBeUndefined();
    expect(nextPlacement(new Error('offer_request_external_id'), 'request')).toBeUndefined();
  });
});

describe("a create refused because the deal's id is already used", () => {
  const held = [
    'offer_request_external_id "deal-7" is already used by offer request 12',
    'offer_request_external_id has already been taken',
    'duplicate key value violates unique constraint "offer_requests_offer_request_external_id_key"',
  ];

  it('is the service holding a request made with it, whatever the code, and never a reason to move or drop the id', () => {
    for (const message of held) {
      for (const [code, status] of [
        ['CONFLICT', 409],
        ['INVALID_RECORD', 400],
        ['INVALID_RECORD', 422],
      ] as const) {
        const error = new CashOfferError({ code, operation: 'createOfferRequest', status, message });
        expect(saysExternalIdHeld(error)).toBe(true);
        expect(nextPlacement(error, 'request')).toBeUndefined();
        expect(nextPlacement(error, 'body')).toBeUndefined();
      }
    }
  });

  it('is not a refusal of where the id goes, nor one that does not name it', () => {
    expect(
      saysExternalIdHeld(
        refusal('request.offer_request_external_id is not a request field the service knows'),
      ),
    ).toBe(false);
    expect(
      saysExternalIdHeld(refusal('offer_request_external_id does not exist on the request object')),
    ).toBe(false);
    expect(saysExternalIdHeld(refusal('a request for this property already exists'))).toBe(false);
    const outage = new CashOfferError({
      code: 'UNAVAILABLE',
      operation: 'x',
      status: 503,
      message: 'offer_request_external_id already used',
    });
    expect(saysExternalIdHeld(outage)).toBe(false);
  });
});
