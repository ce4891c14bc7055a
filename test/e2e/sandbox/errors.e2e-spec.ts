import { gzipSync } from 'node:zlib';
import { RunningCashOfferSandbox } from '../../../sandbox/cash-offer';
import {
  AGENT,
  AGENT2,
  BUYER,
  PARTNER,
  activeRequest,
  buyerOffer,
  call,
  control,
  Json,
  createBody,
  startTestSandbox,
} from './sandbox.helpers';

// One test per error path of docs/spec-decisions.md; each answers the error object { error, message }.
describe('Cash Offer sandbox: error paths', () => {
  let sandbox: RunningCashOfferSandbox;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(() => sandbox.close());
  beforeEach(() => control(sandbox, 'POST', '/reset'));

  const expectError = (
    res: { status: number; body: { error: number; message: string } },
    status: number,
    fragment?: string,
  ) => {
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(status);
    expect(typeof res.body.message).toBe('string');
    if (fragment) expect(res.body.message).toContain(fragment);
  };
  const storedRequests = async (): Promise<Json> => (await control(sandbox, 'GET', '/offer-requests')).body;

  it('401 without a key, on every route', async () => {
    const routes: [string, string][] = [
      ['POST', '/offer-requests'],
      ['POST', '/offer-requests/prelim'],
      ['PATCH', '/offer-requests/1001'],
      ['PATCH', '/offer-requests/'],
      ['GET', '/active-offer-requests'],
      ['GET', '/offers'],
      ['PATCH', '/offers/'],
      ['POST', '/counter-offers'],
      ['POST', '/wh'],
      ['PATCH', '/wh'],
      ['POST', '/buyer/lead'],
      ['POST', '/push-to-marketplace'],
    ];
    for (const [method, path] of routes) {
      const res = await call(sandbox, method, path, method === 'GET' ? undefined : {}, null);
      expectError(res, 401, 'Authorization header');
    }
  });

  it('401 with an unknown key; the key is accepted bare or as Bearer', async () => {
    expectError(await call(sandbox, 'GET', '/offers', undefined, 'not-a-key'), 401, 'not valid');
    expect((await call(sandbox, 'GET', '/offers', undefined, AGENT.key)).status).toBe(200);
    expect((await call(sandbox, 'GET', '/offers', undefined, `Bearer ${AGENT.key}`)).status).toBe(200);
  });

  it('403 on another account’s request, offer or property, and for roles that may not act', async () => {
    const { offer_request_id: id, inventory_property_id: propertyId } = await activeRequest(
      sandbox,
      AGENT.key,
    );
    const offer = await buyerOffer(sandbox, id);
    expectError(
      await call(
        sandbox,
        'PATCH',
        `/offer-requests/${id}`,
        { media: ['https://p.example/1.jpg'] },
        AGENT2.key,
      ),
      403,
      'another account',
    );
    expectError(
      await call(
        sandbox,
        'PATCH',
        '/offers',
        { offer_id: offer.offer_id, offer_status: 'accepted' },
        AGENT2.key,
      ),
      403,
    );
    expectError(
      await call(
        sandbox,
        'POST',
        '/counter-offers',
        { offer_id: offer.offer_id, counter_offer_amount: 1 },
        AGENT2.key,
      ),
      403,
    );
    expectError(
      await call(
        sandbox,
        'POST',
        '/push-to-marketplace',
        { request: { inventory_property_id: propertyId } },
        AGENT2.key,
      ),
      403,
    );
    const lead = {
      first_name: 'Ann',
      last_name: 'Lee',
      primary_email: 'ann@e2e.example',
      property_address: { offer_request_id: id },
    };
    expectError(await call(sandbox, 'POST', '/buyer/lead', lead, AGENT.key), 403, 'buyer and partner');
    expectError(
      await call(sandbox, 'POST', '/offer-requests', { ...createBody(), assumptions: [] }, PARTNER.key),
      403,
      'buyer',
    );
    // Nothing changed by the refused calls.
    const [offerAfter] = (await control(sandbox, 'GET', '/offers')).body;
    expect(offerAfter.offer_status).toBe('active');
    expect((await control(sandbox, 'GET', '/buyer-leads')).body).toEqual([]);
    expect((await control(sandbox, 'GET', '/offer-requests')).body[0].media).toEqual([]);
  });

  it('404 for unknown ids and paths', async () => {
    expectError(
      await call(sandbox, 'PATCH', '/offer-requests/999999', { media: [] }),
      404,
      'offer request 999999 does not exist',
    );
    expectError(
      await call(sandbox, 'PATCH', '/offer-requests/', { offer_request_id: 424242, media: [] }),
      404,
    );
    expectError(
      await call(sandbox, 'PATCH', '/offers', { offer_id: 31337, offer_status: 'rejected' }),
      404,
      'offer 31337',
    );
    expectError(
      await call(sandbox, 'POST', '/counter-offers', { offer_id: 31337, counter_offer_amount: 5 }),
      404,
    );
    expectError(
      await call(sandbox, 'POST', '/push-to-marketplace', { request: { inventory_property_id: 77 } }),
      404,
      'property 77',
    );
    const lead = {
      first_name: 'A',
      last_name: 'B',
      primary_phone: '555',
      property_address: { offer_request_id: 5 },
    };
    expectError(await call(sandbox, 'POST', '/buyer/lead', lead, BUYER.key), 404);
    expectError(await call(sandbox, 'PATCH', '/wh', { url: 'http://127.0.0.1:9/x' }), 404, 'POST /wh');
    expectError(await call(sandbox, 'GET', '/no-such-endpoint'), 404);
    expectError(await call(sandbox, 'DELETE', '/offers'), 404, 'use GET or PATCH');
    expectError(await control(sandbox, 'POST', '/offer-requests/5/approve'), 404);
  });

  it('409 for impossible transitions', async () => {
    const { offer_request_id: id } = await activeRequest(sandbox);
    const a = await buyerOffer(sandbox, id);
    const b = await buyerOffer(sandbox, id);
    expect(
      (await call(sandbox, 'PATCH', '/offers', { offer_id: a.offer_id, offer_status: 'accepted' })).status,
    ).toBe(200);
    expectError(
      await call(sandbox, 'PATCH', '/offers', { offer_id: b.offer_id, offer_status: 'accepted' }),
      409,
      'rejected',
    );
    expectError(
      await call(sandbox, 'POST', '/counter-offers', { offer_id: b.offer_id, counter_offer_amount: 5 }),
      409,
    );
    expectError(await control(sandbox, 'POST', `/offer-requests/${id}/approve`), 409, 'under_contract');
    await control(sandbox, 'POST', `/offer-requests/${id}/close`);
    expectError(
      await call(sandbox, 'PATCH', `/offer-requests/${id}`, { media: ['https://p.example/1.jpg'] }),
      409,
      'closed',
    );
    expectError(await control(sandbox, 'POST', `/offer-requests/${id}/offers`, {}), 409, 'active requests');
  });

  it('400 for bad query parameters', async () => {
    expectError(
      await call(sandbox, 'GET', '/active-offer-requests?limit=0'),
      400,
      'limit must be a whole number from 1 to 100',
    );
    expectError(await call(sandbox, 'GET', '/active-offer-requests?limit=101'), 400, 'limit');
    expectError(await call(sandbox, 'GET', '/active-offer-requests?offset=-1'), 400, 'offset');
    expectError(await call(sandbox, 'GET', '/active-offer-requests?sort=price'), 400, 'sort must be one of');
    expectError(
      await call(sandbox, 'GET', '/active-offer-requests?page=2'),
      400,
      'page is not a query parameter',
    );
    expectError(await call(sandbox, 'GET', '/offers?status=pending'), 400, 'status must be one of');
    expectError(await call(sandbox, 'GET', '/offers?limit=501'), 400, 'limit');
  });

  it('400 for malformed JSON, nothing stored', async () => {
    expectError(await call(sandbox, 'POST', '/offer-requests', '{"request": {'), 400, 'not valid JSON');
    expectError(await call(sandbox, 'PATCH', '/offers', '[1,'), 400, 'not valid JSON');
    expect(await storedRequests()).toEqual([]);
  });

  it('413 for a body over 1 MiB, nothing stored', async () => {
    const body = createBody({ property: { Notes: 'x'.repeat(1024 * 1024) } });
    expectError(await call(sandbox, 'POST', '/offer-requests', body), 413, '1 MiB');
    expect(await storedRequests()).toEqual([]);
    // Just under the limit is accepted.
    const fits = createBody({ property: { Notes: 'x'.repeat(1000 * 1000) } });
    expect((await call(sandbox, 'POST', '/offer-requests', fits)).status).toBe(201);
  });

  it('415 for a body that is not JSON, nothing stored', async () => {
    const res = await call(sandbox, 'POST', '/offer-requests', JSON.stringify(createBody()), AGENT.key, {
      'content-type': 'text/plain',
    });
    expectError(res, 415, 'Content-Type: application/json');
    const form = await call(sandbox, 'POST', '/wh', 'url=http://x', AGENT.key, {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expectError(form, 415);
    expect(await storedRequests()).toEqual([]);
  });

  it('415 for a JSON body in a Content-Encoding the service does not read, nothing stored', async () => {
    const res = await fetch(`${sandbox.baseUrl}/offer-requests`, {
      method: 'POST',
      headers: { authorization: AGENT.key, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify(createBody())),
    });
    expectError({ status: res.status, body: (await res.json()) as Json }, 415, 'content encoding');
    expect(await storedRequests()).toEqual([]);
  });

  it('404 for a path spelled in another case (paths are case-sensitive)', async () => {
    expectError(await call(sandbox, 'GET', '/Offers'), 404, 'no endpoint GET /api/v2/Offers');
    expectError(await control(sandbox, 'GET', '/Stats'), 404, 'no control route GET /__control/Stats');
  });
});
