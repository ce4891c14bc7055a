import { RunningCashOfferSandbox } from '../../../sandbox/cash-offer';
import { AGENT, BUYER, call, control, createBody, startTestSandbox } from './sandbox.helpers';

// One test per field constraint family of the spec's schema; every refusal is a 400 with the
// error object naming the field, and nothing is stored.
describe('Cash Offer sandbox: field validation (POST /offer-requests)', () => {
  let sandbox: RunningCashOfferSandbox;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(() => sandbox.close());
  beforeEach(() => control(sandbox, 'POST', '/reset'));

  async function refused(body: unknown, ...fragments: string[]): Promise<void> {
    const res = await call(sandbox, 'POST', '/offer-requests', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(400);
    for (const fragment of fragments) expect(res.body.message).toContain(fragment);
    const stored = await control(sandbox, 'GET', '/offer-requests');
    expect(stored.body).toEqual([]);
  }

  it('accepts a complete request and stores it', async () => {
    const res = await call(sandbox, 'POST', '/offer-requests', createBody());
    expect(res.status).toBe(201);
    expect(res.body.offer_request_status).toBe('in_review');
    expect((await control(sandbox, 'GET', '/offer-requests')).body).toHaveLength(1);
  });

  it('maxLength: names the field, its length and the limit', async () => {
    await refused(
      createBody({ property: { StreetName: 'x'.repeat(57), StateOrProvince: 'TEX' } }),
      'property.StreetName is 57 characters; the service allows 50',
      'property.StateOrProvince is 3 characters; the service allows 2',
    );
  });

  it('enum: lists the allowed values', async () => {
    await refused(
      createBody({ property: { MlsStatus: 'Pending' } }),
      'property.MlsStatus is "Pending"; allowed values are Active',
    );
    await refused(createBody({ property: { OccupantType: 'owner' } }), 'property.OccupantType');
  });

  it('number: refuses text in a number field', async () => {
    await refused(
      createBody({ property: { BedroomsTotal: 'three' } }),
      'property.BedroomsTotal must be a number',
    );
  });

  it('integer: refuses fractions in integer fields', async () => {
    await refused(
      createBody({ property: { TaxAnnualAmount: 1200.5 } }),
      'property.TaxAnnualAmount must be a whole number',
    );
    await refused(
      createBody({ request: { offer_request_asking: 99.5 } }),
      'request.offer_request_asking must be a whole number',
    );
  });

  it('boolean: refuses "yes" in a YN field', async () => {
    await refused(
      createBody({ property: { PoolPrivateYN: 'yes' } }),
      'property.PoolPrivateYN must be true or false',
    );
  });

  it('date: LeaseExpiration must be a real YYYY-MM-DD date', async () => {
    await refused(
      createBody({ property: { LeaseExpiration: '2026-02-30' } }),
      'property.LeaseExpiration must be a date',
    );
    await refused(createBody({ property: { LeaseExpiration: '03/01/2026' } }), 'YYYY-MM-DD');
  });

  it('array of enum: every item of Sewer must be allowed', async () => {
    await refused(
      createBody({ property: { Sewer: ['Public Sewer', 'Pipe'] } }),
      'property.Sewer[1] is "Pipe"',
    );
    await refused(createBody({ property: { WaterSource: 'Public' } }), 'property.WaterSource must be a list');
  });

  it('nullable: null only where the spec allows it', async () => {
    const ok = await call(
      sandbox,
      'POST',
      '/offer-requests',
      createBody({ property: { PropertyCondition: null, ListAgentEmail: null } }),
    );
    expect(ok.status).toBe(201);
    await control(sandbox, 'POST', '/reset');
    await refused(createBody({ property: { StreetName: null } }), 'property.StreetName');
    await refused(
      createBody({ property: { BedroomsTotal: null } }),
      'property.BedroomsTotal must not be null',
    );
  });

  it('required fields, or UnparsedAddress + City instead of the street fields', async () => {
    const property = { StateOrProvince: 'TX', PostalCode: '75201', MlsStatus: 'Active' };
    await refused(
      { request: { offer_request_asking: 1000 }, property },
      'property.StreetNumber is required (or give property.UnparsedAddress and property.City',
      'property.PostalCity is required',
    );
    await refused(
      { request: {}, property: { ...property, UnparsedAddress: '1 Main St' } },
      'request.offer_request_asking is required',
      'property.StreetName',
    );
    await refused({ property }, 'request is required');
    const alternative = await call(sandbox, 'POST', '/offer-requests', {
      request: { offer_request_asking: 1000 },
      property: { ...property, UnparsedAddress: '1 Main St', City: 'Dallas' },
    });
    expect(alternative.status).toBe(201);
  });

  it('unknown fields are refused, not dropped', async () => {
    await refused(
      createBody({ property: { Streetname: 'Elm' } }),
      'property.Streetname is not a property field the service knows',
    );
    await refused({ ...createBody(), extra: 1 }, 'extra is not part of an offer request body');
  });

  it('names every offending field in one message', async () => {
    const res = await call(
      sandbox,
      'POST',
      '/offer-requests',
      createBody({ property: { StreetName: 'x'.repeat(60), PoolPrivateYN: 1, Sewer: ['x'] } }),
    );
    expect(res.status).toBe(400);
    for (const field of ['property.StreetName', 'property.PoolPrivateYN', 'property.Sewer[0]'])
      expect(res.body.message).toContain(field);
  });

  it('media: a list of http(s) URLs, at most 50', async () => {
    await refused(createBody({ media: ['ftp://x/a.jpg'] }), 'media[0] must be an http(s) URL');
    await refused(
      createBody({ media: Array.from({ length: 51 }, (_, i) => `https://p.example/${i}.jpg`) }),
      'media has 51 photos',
    );
  });

  it('assumptions: buyers only, each item checked', async () => {
    const withAssumptions = { ...createBody(), assumptions: [{ ltr_monthly_rent: 1800, fmv: 240000 }] };
    const fromAgent = await call(sandbox, 'POST', '/offer-requests', withAssumptions, AGENT.key);
    expect(fromAgent.status).toBe(403);
    const badItem = await call(
      sandbox,
      'POST',
      '/offer-requests',
      { ...createBody(), assumptions: [{ ltr_monthly_rent: 'a lot' }] },
      BUYER.key,
    );
    expect(badItem.status).toBe(400);
    expect(badItem.body.message).toContain('assumptions[0].ltr_monthly_rent must be a number');
    expect((await control(sandbox, 'GET', '/offer-requests')).body).toEqual([]);
    const fromBuyer = await call(sandbox, 'POST', '/offer-requests', withAssumptions, BUYER.key);
    expect(fromBuyer.status).toBe(201);
    const [stored] = (await control(sandbox, 'GET', '/offer-requests')).body;
    expect(stored.assumptions[0]).toMatchObject({
      ltr_monthly_rent: 1800,
      inventory_property_id: fromBuyer.body.inventory_property_id,
    });
  });
});
