import fc from 'fast-check';
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

// Bodies built to hurt: nesting far past any real event (a 60,000-deep body used
// to overflow the stack and answer 500), huge arrays and strings around the size limit, odd unicode.
const deepNesting = fc
  .tuple(fc.integer({ min: 20, max: 70_000 }), fc.constantFrom('[', '{"a":'), fc.constantFrom(...validEvents))
  .map(([depth, open, event]) => {
    const close = open === '[' ? ']' : '}';
    const nested = `${open.repeat(depth)}1${close.repeat(depth)}`;
    return `${JSON.stringify(event).slice(0, -1)},"detail":${nested}}`;
  });
const hugeArray = fc
  .tuple(
    fc.integer({ min: 1_000, max: 140_000 }),
    fc.constantFrom(...validEvents),
    fc.constantFrom('0', '{}', '[]', '"x"'),
  )
  .map(([length, event, item]) =>
    JSON.stringify({ ...event, items: '@' }).replace('"@"', `[${Array(length).fill(item).join(',')}]`),
  );
const longString = fc
  .tuple(
    fc.integer({ min: 10_000, max: 300_000 }),
    fc.constantFrom(...validEvents),
    fc.constantFrom('x', 'é', '😀', '\\u0000'),
  )
  .map(([length, event, unit]) =>
    JSON.stringify({ ...event, offer_memo: '@' }).replace('"@"', `"${unit.repeat(length / unit.length)}"`),
  );
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const oddText = fc.string({
  unit: fc.oneof(
    fc.string({ unit: 'binary', maxLength: 1 }),
    loneSurrogate,
    fc.constantFrom('\u0000', '\ufeff', '\u202e', '\u2028', '\uffff'),
  ),
  maxLength: 40,
});
const oddUnicode = fc.oneof(
  fc
    .tuple(fc.constantFrom(...validEvents), oddText, oddText)
    .map(([event, key, value]) => JSON.stringify({ ...event, [key]: value })),
  fc
    .tuple(fc.constantFrom(...validEvents), oddText)
    .map(([event, value]) => JSON.stringify({ ...event, event: value })),
  fc.constantFrom(...validEvents).map((event) => `\ufeff${JSON.stringify(event)}`),
  fc.constantFrom(...validEvents).map((event) => JSON.stringify(event).replace('"event"', '"ev\\ud800ent"')),
  oddText,
);
const hostileBody = fc.oneof(deepNesting, hugeArray, longString, oddUnicode);

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
