import fc from 'fast-check';
import { fuzzedBodies, hostileBodies } from '../../support/hostile-bodies';
import { startWebhookApp, WebhookTestApp } from '../../support/webhook-app';

const SECRET = 'acme-secret-0123456789abcdefghij';
const HOSTILE_SECRET = 'hostile-secret-0123456789abcdefg';
const PAYLOADS = 3_000;
const HOSTILE_PAYLOADS = 200;
const CONCURRENCY = 16;
const BODY_LIMIT = 256 * 1024;

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

const shape = {
  validEvents,
  fields: ['offer_id', 'offer_request_id', 'offer_amount', 'offer_status', 'event'],
};
const body = fuzzedBodies(shape);
const hostileBody = hostileBodies(shape);

interface Delivery {
  statuses: Map<number, number>;
  stored: number;
  duplicates: number;
  // Distinct refused bodies (as the bytes sent): each one is one dead row, however often it came.
  refused: Set<string>;
}

const METHODS = ['POST', 'PATCH', 'PUT'] as const;

async function deliver(url: string, bodies: string[], concurrency: number): Promise<Delivery> {
  const result: Delivery = { statuses: new Map(), stored: 0, duplicates: 0, refused: new Set() };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const index = next++;
      const payload = bodies[index];
      // The listener takes the service's "UPDATE call" as a PUT or PATCH too: each gets its share.
      const answer = await fetch(url, {
        method: METHODS[index % METHODS.length],
        headers: { 'content-type': 'application/json' },
        body: payload,
      });
      result.statuses.set(answer.status, (result.statuses.get(answer.status) ?? 0) + 1);
      if (answer.status === 200) {
        const { duplicate } = (await answer.json()) as { duplicate: boolean };
        if (duplicate) result.duplicates += 1;
        else result.stored += 1;
      } else {
        await answer.arrayBuffer();
        if (answer.status === 400) result.refused.add(Buffer.from(payload, 'utf8').toString('base64'));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return result;
}

describe('webhook intake under fuzzing', () => {
  let t: WebhookTestApp;

  beforeAll(async () => {
    t = await startWebhookApp([
      { id: 'acme', secret: SECRET },
      { id: 'hostile', secret: HOSTILE_SECRET },
    ]);
  });

  afterAll(async () => {
    await t.close();
  });

  // 3,000 HTTP round trips take about 10 s on this 2-core machine (10,000 took 30-45 s of the
  // suite for little more reach: the shapes come from the generators, not the count).
  it(`answers ${PAYLOADS} random and mutated payloads without a 5xx, and accounts for every accepted one`, async () => {
    const bodies = fc.sample(body, { numRuns: PAYLOADS, seed: 20261121 });
    const { statuses, stored, duplicates, refused } = await deliver(
      t.hookUrl('acme', SECRET),
      bodies,
      CONCURRENCY,
    );

    const codes = [...statuses.keys()].sort();
    expect(codes.every((code) => code === 200 || code === 400)).toBe(true);
    expect((statuses.get(200) ?? 0) + (statuses.get(400) ?? 0)).toBe(PAYLOADS);
    const depth = await t.ledger.inbox.depth('acme');
    // Every accepted, new payload is in the inbox (pending or flagged), every refused one dead-lettered once.
    expect(depth.pending + depth.flagged).toBe(stored);
    expect(depth.dead).toBe(refused.size);
    expect(stored + duplicates).toBe(statuses.get(200) ?? 0);
    // The daemon is still up and sane after it.
    const after = await fetch(t.hookUrl('acme', SECRET), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...validEvents[0], offer_id: 999999 }),
    });
    expect(after.status).toBe(200);
  }, 240_000);

  it(`answers ${HOSTILE_PAYLOADS} deeply nested, huge and oddly encoded bodies with a 2xx or 4xx, never a 5xx`, async () => {
    const bodies = fc.sample(hostileBody, { numRuns: HOSTILE_PAYLOADS, seed: 20261122 });
    // The sample reaches every shape: past the nesting limit, past the size limit, and under both.
    expect(bodies.some((b) => b.length > BODY_LIMIT)).toBe(true);
    expect(bodies.some((b) => b.length < BODY_LIMIT && /\[{1000}|(\{"a":){1000}/.test(b))).toBe(true);
    const { statuses, stored, duplicates, refused } = await deliver(
      t.hookUrl('hostile', HOSTILE_SECRET),
      bodies,
      4,
    );

    const codes = [...statuses.keys()].sort();
    expect(codes.filter((code) => ![200, 400, 413].includes(code))).toEqual([]);
    expect(statuses.get(413)).toBeGreaterThan(0);
    const depth = await t.ledger.inbox.depth('hostile');
    expect(depth.pending + depth.flagged).toBe(stored);
    expect(depth.dead).toBe(refused.size);
    expect(stored + duplicates).toBe(statuses.get(200) ?? 0);
    const after = await fetch(t.hookUrl('hostile', HOSTILE_SECRET), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...validEvents[0], offer_id: 999998 }),
    });
    expect(after.status).toBe(200);
  }, 240_000);
});
