import fc from 'fast-check';
import { startWebhookApp, WebhookTestApp } from '../../support/webhook-app';

const SECRET = 'acme-secret-0123456789abcdefghij';
const PAYLOADS = 10_000;
const CONCURRENCY = 16;

const validEvents = [
  {
    event: 'new_offer',
    offer_id: 1,
    offer_request_id: 2,
    offer_amount: 300000,
    offer_status: 'active',
    viewed: false,
  },
  { event: 'offer_request_approved', offer_request_id: 2, offer_request_status: 'receiving_offers' },
  {
    event: 'UPDATE',
    update_type: 'counter_offer_rejected',
    counter_offer_id: 4,
    offer_id: 1,
    offer_request_id: 2,
  },
];

// Any JSON value, events with fields removed, retyped or added, and bodies cut or garbled as bytes.
const jsonValue = fc.jsonValue({ maxDepth: 4 });
const mutatedEvent = fc
  .tuple(
    fc.constantFrom(...validEvents),
    fc.dictionary(fc.string({ maxLength: 20 }), jsonValue, { maxKeys: 4 }),
    fc.array(fc.string(), { maxLength: 3 }),
  )
  .map(([event, extra, drop]) => {
    const body: Record<string, unknown> = { ...event, ...extra };
    for (const key of drop) delete body[key];
    return JSON.stringify(body);
  });
const retypedEvent = fc
  .tuple(
    fc.constantFrom(...validEvents),
    fc.constantFrom('offer_id', 'offer_request_id', 'offer_amount', 'offer_status', 'event'),
    jsonValue,
  )
  .map(([event, key, value]) => JSON.stringify({ ...event, [key]: value }));
const garbled = fc
  .tuple(fc.constantFrom(...validEvents), fc.nat(), fc.uint8Array({ maxLength: 64 }))
  .map(([event, cut, bytes]) => {
    const text = JSON.stringify(event);
    return Buffer.concat([Buffer.from(text.slice(0, cut % text.length)), Buffer.from(bytes)]).toString(
      'latin1',
    );
  });
const body = fc.oneof(
  jsonValue.map((v) => JSON.stringify(v)),
  mutatedEvent,
  retypedEvent,
  garbled,
  fc.string({ maxLength: 200 }),
);

describe('webhook intake under fuzzing', () => {
  let t: WebhookTestApp;

  beforeAll(async () => {
    t = await startWebhookApp([{ id: 'acme', secret: SECRET }]);
  });

  afterAll(async () => {
    await t.close();
  });

  // 10,000 HTTP round trips take 30-45 s on this 2-core machine; give a busy CI run room.
  it(`answers ${PAYLOADS} random and mutated payloads without a 5xx, and accounts for every accepted one`, async () => {
    const bodies = fc.sample(body, { numRuns: PAYLOADS, seed: 20261121 });
    const statuses = new Map<number, number>();
    let stored = 0;
    let duplicates = 0;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < bodies.length) {
        const payload = bodies[next++];
        const answer = await fetch(t.hookUrl('acme', SECRET), { method: 'POST', body: payload });
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (answer.status === 200) {
          const { duplicate } = (await answer.json()) as { duplicate: boolean };
          if (duplicate) duplicates += 1;
          else stored += 1;
        } else await answer.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    const codes = [...statuses.keys()].sort();
    expect(codes.every((code) => code === 200 || code === 400)).toBe(true);
    expect((statuses.get(200) ?? 0) + (statuses.get(400) ?? 0)).toBe(PAYLOADS);
    const depth = await t.ledger.inbox.depth('acme');
    // Every accepted, new payload is in the inbox (pending or flagged), every refused one dead-lettered.
    expect(depth.pending + depth.flagged).toBe(stored);
    expect(depth.dead).toBe(statuses.get(400) ?? 0);
    expect(stored + duplicates).toBe(statuses.get(200) ?? 0);
    // The daemon is still up and sane after it.
    const after = await fetch(t.hookUrl('acme', SECRET), {
      method: 'POST',
      body: JSON.stringify({ ...validEvents[0], offer_id: 999999 }),
    });
    expect(after.status).toBe(200);
  }, 240_000);
});
