import type { CreateOfferRequestBody, UpdateOfferRequestBody } from '../../cash-offer/schema';
import { CreateOfferRequestBody as CreateBody, validateWire } from '../../cash-offer/schema';
import { refusalWantsCreateShape, updateAsCreate } from './update-as-create';

const submitted = {
  request: { offer_request_asking: 410_000, offer_request_external_id: 'deal-88', test: false },
  property: {
    StreetNumber: '12',
    StreetName: 'Elm St',
    PostalCity: 'Austin',
    StateOrProvince: 'TX',
    PostalCode: '78701',
    MlsStatus: 'Active',
    ListAgentFirstName: 'Ann',
    ListAgentEmail: 'ann@brokerage.test',
  },
  media: ['https://photos.test/1.jpg'],
} as unknown as CreateOfferRequestBody;

const update = {
  property: {
    ListAgentFirstName: 'Sam',
    ListAgentLastName: null,
    ListAgentEmail: 'sam@brokerage.test',
    ListAgentDirectPhone: null,
  },
} as unknown as UpdateOfferRequestBody;

describe('refusalWantsCreateShape', () => {
  it.each([
    'request is required; property.StreetNumber is required; property.PostalCode is required',
    "body must have required property 'request'",
    'property.StreetName: must not be empty',
    'missing request',
    '"MlsStatus" is required',
  ])('%s: the service checks the update as a create body', (message) => {
    expect(refusalWantsCreateShape(update, message)).toBe(true);
  });

  it.each([
    // A field the update carries, refused for its value: sending more would not help.
    'property.ListAgentEmail must be an email address',
    // A closed request (all-400/all-422 readings give transitions the same code).
    'offer request 17 is closed; it cannot be updated',
    'the request body is not JSON',
  ])('%s: the refusal stands', (message) => {
    expect(refusalWantsCreateShape(update, message)).toBe(false);
  });
});

describe('updateAsCreate', () => {
  it('is the request as submitted with the listing-agent fields as the deal has them now', () => {
    const body = updateAsCreate(update, submitted);
    expect(body).toEqual({
      request: { offer_request_asking: 410_000, test: false },
      property: {
        ...submitted.property,
        ListAgentFirstName: 'Sam',
        ListAgentLastName: null,
        ListAgentEmail: 'sam@brokerage.test',
        ListAgentDirectPhone: null,
      },
    });
    // Photos go by their own call, and the caller's id is fixed at creation.
    expect(body).not.toHaveProperty('media');
    expect(validateWire(CreateBody, body)).toEqual([]);
  });
});
