import { RunningCashOfferSandbox, startCashOfferSandbox } from '../../../sandbox/cash-offer';
import { BUYER, Json, activeRequest, call, control, startTestSandbox } from './sandbox.helpers';

const SPEC_PATHS = [
  ['post', '/offer-requests'],
  ['post', '/offer-requests/prelim'],
  ['patch', '/offer-requests/{offer_request_id}'],
  ['patch', '/offer-requests/'],
  ['get', '/active-offer-requests'],
  ['get', '/offers'],
  ['patch', '/offers'],
  ['post', '/counter-offers'],
  ['post', '/wh'],
  ['patch', '/wh'],
  ['post', '/buyer/lead'],
  ['post', '/push-to-marketplace'],
];

describe('Cash Offer sandbox: signed media and the OpenAPI document', () => {
  let sandbox: RunningCashOfferSandbox;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(() => sandbox.close());
  beforeEach(() => control(sandbox, 'POST', '/reset'));

  it('signed media URLs work for 10 minutes of the sandbox clock, then answer 403', async () => {
    await activeRequest(sandbox, undefined, { media: ['https://photos.example/front.jpg'] });
    const page = await call(sandbox, 'GET', '/active-offer-requests', undefined, BUYER.key);
    const [signed] = page.body[0].media as string[];
    expect(signed.startsWith(`${sandbox.url}/media/`)).toBe(true);
    expect((await fetch(signed)).status).toBe(200);
    const tampered = signed.replace(/sig=.{4}/, 'sig=AAAA');
    expect((await fetch(tampered)).status).toBe(403);
    await control(sandbox, 'POST', '/clock/advance', { ms: 9 * 60 * 1000 });
    expect((await fetch(signed)).status).toBe(200);
    await control(sandbox, 'POST', '/clock/advance', { ms: 2 * 60 * 1000 });
    const expired = await fetch(signed);
    expect(expired.status).toBe(403);
    expect(await expired.json()).toMatchObject({ error: 403, message: expect.stringContaining('expired') });
    // A fresh page signs again.
    const again = await call(sandbox, 'GET', '/active-offer-requests', undefined, BUYER.key);
    expect((await fetch(again.body[0].media[0])).status).toBe(200);
  });

  it('serves an OpenAPI 3 document listing every path of the spec', async () => {
    const res = await fetch(`${sandbox.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    const doc: Json = await res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.servers[0].url).toBe(sandbox.baseUrl);
    expect(doc.components.securitySchemes.ApiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
    });
    for (const [method, path] of SPEC_PATHS) expect(doc.paths[path]?.[method]).toBeDefined();
    const property = doc.components.schemas.Property.properties;
    expect(property.StreetName).toEqual({ type: 'string', maxLength: 50 });
    expect(property.Sewer.items.enum).toContain('Public Sewer');
    expect(property.LeaseExpiration).toEqual({ type: 'string', format: 'date' });
    expect(property.PropertyCondition.nullable).toBe(true);
    expect(doc.components.schemas.Error.required).toEqual(['error', 'message']);
  });

  it('uses the accounts of config/sandbox-accounts.json and the env keys by default', async () => {
    const previous = { agent: process.env.SANDBOX_AGENT_KEY, buyer: process.env.SANDBOX_BUYER_KEY };
    process.env.SANDBOX_AGENT_KEY = 'env-agent-key';
    delete process.env.SANDBOX_BUYER_KEY;
    const defaults = await startCashOfferSandbox();
    try {
      expect(defaults.agentKey).toBe('env-agent-key');
      expect(defaults.buyerKey).toBe('sandbox-buyer-key');
      const res = await fetch(`${defaults.baseUrl}/offers`, { headers: { authorization: 'env-agent-key' } });
      expect(res.status).toBe(200);
      const partner = await fetch(`${defaults.baseUrl}/offers`, {
        headers: { authorization: 'sandbox-partner-key' },
      });
      expect(partner.status).toBe(200);
    } finally {
      await defaults.close();
      if (previous.agent === undefined) delete process.env.SANDBOX_AGENT_KEY;
      else process.env.SANDBOX_AGENT_KEY = previous.agent;
      if (previous.buyer !== undefined) process.env.SANDBOX_BUYER_KEY = previous.buyer;
    }
  });
});
