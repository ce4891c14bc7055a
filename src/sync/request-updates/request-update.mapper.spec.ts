import type { CreateOfferRequestBody } from '../../cash-offer/schema';
import { planRequestUpdate } from './request-update.mapper';

const sent: CreateOfferRequestBody = {
  request: { offer_request_asking: 425_000, offer_request_external_id: '9001' },
  property: {
    StreetName: 'Oak Street',
    StateOrProvince: 'TX',
    ListAgentEmail: 'dana@example.com',
    ListAgentFirstName: 'Dana',
  },
};

describe('planRequestUpdate', () => {
  it('sends the four listing-agent fields as they are now, null for a cleared one', () => {
    const plan = planRequestUpdate(sent, {
      ...sent,
      property: { ...sent.property, ListAgentEmail: 'sam@example.com', ListAgentFirstName: undefined },
    });
    expect(plan.update).toEqual({
      property: {
        ListAgentFirstName: null,
        ListAgentLastName: null,
        ListAgentEmail: 'sam@example.com',
        ListAgentDirectPhone: null,
      },
    });
    expect(plan.notUpdatable).toEqual([]);
  });

  it('names every other changed field and the asking price instead of sending them', () => {
    const plan = planRequestUpdate(sent, {
      request: { offer_request_asking: 400_000, offer_request_external_id: '9001' },
      property: { ...sent.property, StreetName: 'Elm Street', YearBuilt: 1990 },
    });
    expect(plan.notUpdatable.map((v) => v.field)).toEqual([
      'property.StreetName',
      'property.YearBuilt',
      'request.offer_request_asking',
    ]);
    expect(plan.notUpdatable[1].message).toBe(
      'YearBuilt changed after submission (sent nothing, now 1990); the Cash Offer service does not accept changes to it, so it was not sent',
    );
  });
});
