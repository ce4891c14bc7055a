import { ManualClock } from '../common/clock';
import { CashOfferClient } from './cash-offer.client';
import { FakeService, json } from './fake-service.testing';

const offer = (offer_id: number, offer_request_id: number, offer_status = 'active') => ({
  offer_id,
  offer_request_id,
  offer_status,
  offer_amount: 200_000 + offer_id,
  buyer_pays_buyer_broker_commission: false,
  buyer_pays_listing_broker_commission: false,
  buyer_broker_commission_pct: 0,
  listing_broker_commission_pct: 0,
  created_at: '2026-01-01T00:00:00Z',
});

// A service that keeps to the spec's letter: GET /offers takes no query parameters.
describe('CashOfferClient: GET /offers on a service that refuses limit/offset', () => {
  const service = new FakeService();
  let baseUrl: string;
  const clients: CashOfferClient[] = [];
  const warnings: string[] = [];

  const build = (brokerageId: string) => {
    const client = new CashOfferClient(
      {
        brokerageId,
        baseUrl,
        apiKey: 'unit-key-0001',
        timeoutMs: 2000,
        rateLimit: { max: 1000, intervalMs: 1000 },
        retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 },
      },
      new ManualClock(),
      { log: () => undefined, warn: (m: string) => warnings.push(m), error: () => undefined },
    );
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    baseUrl = await service.start();
    service.handler = (req, res) => {
      if (req.url.includes('?')) json(res, 400, { error: 400, message: 'Unknown query parameter: limit' });
      else json(res, 200, [offer(1, 4), offer(2, 7), offer(3, 4, 'rejected'), offer(4, 4)]);
    };
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await service.stop();
  });

  it('falls back to a plain GET, applies the query itself, and remembers it for the brokerage', async () => {
    const client = build('b1');
    const first = await client.listOffers({ offer_request_id: 4, limit: 2, offset: 0 });
    expect(first.map((o) => o.offer_id)).toEqual([1, 3]);
    const second = await client.listOffers({ offer_request_id: 4, limit: 2, offset: 2 });
    expect(second.map((o) => o.offer_id)).toEqual([4]);
    expect(await client.listOffers({ status: 'rejected' })).toHaveLength(1);
    expect(service.seen.map((s) => s.url)).toEqual([
      '/api/v2/offers?offer_request_id=4&limit=2&offset=0',
      '/api/v2/offers',
      '/api/v2/offers',
      '/api/v2/offers',
    ]);
    expect(warnings.join('\n')).toContain('brokerage b1: GET /offers refused its query');

    // Another brokerage's client has its own service and tries the query first.
    service.seen.length = 0;
    await build('b2').listOffers({ limit: 10, offset: 0 });
    expect(service.seen.map((s) => s.url)).toEqual(['/api/v2/offers?limit=10&offset=0', '/api/v2/offers']);
  });
});
