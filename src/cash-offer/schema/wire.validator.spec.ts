import { BuyerLeadBody, WebhookConfig } from './marketplace.dto';
import { CreateOfferRequestBody, UpdateOfferRequestBody } from './offer-request.dto';
import { CounterOfferBody } from './offer.dto';
import { validateWire } from './wire.validator';

const validateCreateOfferRequest = (body: unknown) => validateWire(CreateOfferRequestBody, body);
const validateUpdateOfferRequest = (body: unknown) => validateWire(UpdateOfferRequestBody, body);
const validateCounterOffer = (body: unknown) => validateWire(CounterOfferBody, body);
const validateBuyerLead = (body: unknown) => validateWire(BuyerLeadBody, body);
const validateWebhookConfig = (body: unknown) => validateWire(WebhookConfig, body);

const validProperty = {
  StreetNumber: '12',
  StreetName: 'Main St',
  PostalCity: 'Austin',
  StateOrProvince: 'TX',
  PostalCode: '78701',
  MlsStatus: 'Active',
};

describe('validateCreateOfferRequest', () => {
  it('accepts the six required fields', () => {
    expect(
      validateCreateOfferRequest({ request: { offer_request_asking: 300000 }, property: validProperty }),
    ).toEqual([]);
  });

  it('accepts UnparsedAddress + City in place of the street fields', () => {
    const { StreetNumber: _n, StreetName: _s, PostalCity: _c, ...rest } = validProperty;
    const property = { ...rest, UnparsedAddress: '12 Main St', City: 'Austin' };
    expect(validateCreateOfferRequest({ request: { offer_request_asking: 1 }, property })).toEqual([]);
  });

  it('names every offending field with the rule it breaks', () => {
    const violations = validateCreateOfferRequest({
      request: { offer_request_asking: 12.5 },
      property: {
        ...validProperty,
        StreetName: 'x'.repeat(57),
        MlsStatus: 'Pending',
        BedroomsTotal: 'three',
        Sewer: ['Public Sewer', 'Septic'],
        LeaseExpiration: '2026-02-30',
        GarageYN: 'yes',
        Streetname: 'typo',
      },
    });
    expect(violations.map((v) => v.message)).toEqual(
      expect.arrayContaining([
        'request.offer_request_asking must be a whole number; got 12.5',
        'property.StreetName is 57 characters; the service allows 50',
        expect.stringContaining('property.MlsStatus is "Pending"; allowed values are Active'),
        'property.BedroomsTotal must be a number; got "three"',
        expect.stringContaining('property.Sewer[1] is "Septic"'),
        'property.LeaseExpiration must be a date written YYYY-MM-DD; got "2026-02-30"',
        'property.GarageYN must be true or false; got "yes"',
        'property.Streetname is not a property field the service knows',
      ]),
    );
    expect(violations).toHaveLength(8);
  });

  it('requires the street fields when no unparsed address is given', () => {
    const violations = validateCreateOfferRequest({
      request: { offer_request_asking: 1 },
      property: { StateOrProvince: 'TX', PostalCode: '78701', MlsStatus: 'Active' },
    });
    expect(violations.map((v) => v.field).sort()).toEqual([
      'property.PostalCity',
      'property.StreetName',
      'property.StreetNumber',
    ]);
  });

  it('refuses null where the spec does not allow it, and allows it where it does', () => {
    const violations = validateCreateOfferRequest({
      request: { offer_request_asking: 1 },
      property: { ...validProperty, ListAgentEmail: null, YearBuilt: null },
    });
    expect(violations.map((v) => v.message)).toEqual(['property.YearBuilt must not be null']);
  });
});

describe('validateUpdateOfferRequest', () => {
  it('allows only the listing-agent fields and media', () => {
    expect(
      validateUpdateOfferRequest({ property: { ListAgentEmail: 'a@b.co' }, media: ['https://x/y.jpg'] }),
    ).toEqual([]);
    const [violation] = validateUpdateOfferRequest({ property: { StreetName: 'Elm' } });
    expect(violation.message).toContain('property.StreetName cannot be changed after submission');
  });
});

describe('other bodies', () => {
  it('counter offers need the offer and an amount', () => {
    expect(validateCounterOffer({}).map((v) => v.field)).toEqual(['offer_id', 'counter_offer_amount']);
  });

  it('buyer leads need a way to reach the buyer', () => {
    const violations = validateBuyerLead({
      first_name: 'A',
      last_name: 'B',
      property_address: { offer_request_id: 1 },
    });
    expect(violations.map((v) => v.message)).toEqual(['primary_email or primary_phone is required']);
  });

  it('webhook URLs must be absolute http(s) URLs', () => {
    expect(validateWebhookConfig({ url: 'ftp://x' })[0].message).toContain('must be an absolute http(s) URL');
    expect(validateWebhookConfig({ url: 'http://127.0.0.1:3000/hooks/x' })).toEqual([]);
  });
});

describe('fields the wire class does not know', () => {
  it('are named, whatever they hold', () => {
    const body = { offer_id: 1, counter_offer_amount: 2, items: [{}, [], 0] };
    expect(validateCounterOffer(body).map((v) => v.field)).toEqual(['items']);
  });

  // Given its own prototype, the body would be checked against no wire class at all.
  it('cannot turn the rules off with a "__proto__" key', () => {
    const body = JSON.parse('{"items": 1, "__proto__": {"polluted": true}}') as unknown;
    expect(validateCounterOffer(body).map((v) => v.field)).toEqual([
      'offer_id',
      'counter_offer_amount',
      'items',
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  // class-validator finds a class's rules by the object's `constructor`: one given by the body hid
  // them, and the whole body was refused as "an unknown value" naming no field.
  it('name a "constructor" key as such, and the rules still hold', () => {
    const body = JSON.parse(
      '{"offer_id": "x", "counter_offer_amount": 2, "constructor": {"prototype": {}}}',
    ) as unknown;
    expect(validateCounterOffer(body).map((v) => v.field)).toEqual(['offer_id', 'constructor']);
    const nested = JSON.parse(
      '{"request": {"offer_request_asking": 1, "constructor": 1}, "property": {"StreetNumber": "12", "StreetName": "Main St", "PostalCity": "Austin", "StateOrProvince": "TX", "PostalCode": "78701", "MlsStatus": "Active"}}',
    ) as unknown;
    expect(validateCreateOfferRequest(nested).map((v) => v.field)).toEqual(['request.constructor']);
  });

  it('are named inside nested wire objects and lists of them', () => {
    const violations = validateCreateOfferRequest({
      request: { offer_request_asking: 1, extra: [1, 2] },
      property: { ...validProperty, Rooms: { many: true } },
    });
    expect(violations.map((v) => v.field)).toEqual(['request.extra', 'property.Rooms']);
  });
});
