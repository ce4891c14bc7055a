import { gzipSync } from 'node:zlib';
import { InboxEvent } from '../../../src/ledger/entities';
import { MetricsService } from '../../../src/observability/metrics/metrics.service';
import { startWebhookApp, WebhookTestApp } from '../../support/webhook-app';

const ACME_SECRET = 'acme-secret-0123456789abcdefghij';
const OTHER_SECRET = 'other-secret-0123456789abcdefghi';
const OLD_SECRET = 'acme-old-secret-0123456789abcdefg';

const offerEvent = (offerId: number, requestId = 7) => ({
  event: 'new_offer',
  offer_id: offerId,
  offer_request_id: requestId,
  offer_amount: 250_000 + offerId,
  offer_status: 'active',
  buyer_broker_commission_pct: 3,
});

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('webhook intake over real HTTP', () => {
  let t: WebhookTestApp;
  const events = async (): Promise<InboxEvent[]> => t.ledger.inbox.list({ limit: 100_000 });

  beforeEach(async () => {
    t = await startWebhookApp([
      {
        id: 'acme',
        secret: ACME_SECRET,
        previousSecret: OLD_SECRET,
        previousSecretValidUntil: '2999-01-01T00:00:00Z',
      },
      {
        id: 'other',
        secret: OTHER_SECRET,
        previousSecret: 'other-expired-secret-0123456789ab',
        previousSecretValidUntil: '2000-01-01T00:00:00Z',
      },
    ]);
  });

  afterEach(async () => {
    await t.close();
  });

  it('stores an event before answering 200, and answers a redelivery 200 without storing it again', async () => {
    const first = await post(t.hookUrl('acme', ACME_SECRET), offerEvent(1));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true, duplicate: false });
    const again = await post(t.hookUrl('acme', ACME_SECRET), { ...offerEvent(1) });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    const stored = await events();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      brokerageId: 'acme',
      eventType: 'new_offer',
      status: 'pending',
      orderingKey: 'offer_request:7',
    });
    expect(JSON.parse(stored[0].payload)).toMatchObject({ offer_id: 1, offer_amount: 250_001 });
  });

  it('keeps one event when the same delivery arrives 50 times at once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => post(t.hookUrl('acme', ACME_SECRET), offerEvent(9))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    const bodies = await Promise.all(answers.map((a) => a.json() as Promise<{ duplicate: boolean }>));
    expect(bodies.filter((b) => !b.duplicate)).toHaveLength(1);
    expect(await events()).toHaveLength(1);
  });

  it('answers 404 to a wrong secret or an unknown brokerage and stores nothing', async () => {
    expect((await post(t.hookUrl('acme', 'wrong-secret-0123456789abcdefghij'), offerEvent(1))).status).toBe(
      404,
    );
    expect((await post(t.hookUrl('nobody', ACME_SECRET), offerEvent(1))).status).toBe(404);
    expect((await post(`${t.url}/webhooks/acme`, offerEvent(1))).status).toBe(404);
    expect(await events()).toHaveLength(0);
  });

  it("takes the spec's UPDATE call as a PUT or PATCH too, with the POST's guards: secret, JSON, size", async () => {
    const send = (method: string, url: string, body: string, type = 'application/json') =>
      fetch(url, { method, headers: { 'content-type': type }, body });
    const hook = t.hookUrl('acme', ACME_SECRET);
    const update = JSON.stringify({ counter_offer_id: 4, offer_id: 3, offer_request_id: 7 });
    expect((await send('PATCH', t.hookUrl('acme', 'wrong-secret-0123456789abcdefghij'), update)).status).toBe(
      404,
    );
    expect((await send('PUT', t.hookUrl('other', ACME_SECRET), update)).status).toBe(404);
    expect((await send('PATCH', hook, update, 'multipart/form-data; boundary=x')).status).toBe(415);
    expect((await send('PATCH', hook, '{"counter_offer_id":')).status).toBe(400);
    expect((await send('PUT', hook, JSON.stringify({ x: 'y'.repeat(2 * 1024 * 1024) }))).status).toBe(413);
    expect((await send('PATCH', hook, update)).status).toBe(200);
    expect(
      (await send('PUT', hook, JSON.stringify({ event: 'counter_offer_rejected', offer_id: 5 }))).status,
    ).toBe(200);
    const stored = (await events()).filter((e) => e.eventType === 'UPDATE');
    expect(stored.map((e) => [e.status, e.orderingKey])).toEqual(
      expect.arrayContaining([
        ['pending', 'offer_request:7'],
        ['pending', null],
      ]),
    );
    expect(stored).toHaveLength(2);
    const named = stored.find((e) => e.orderingKey === null)!;
    expect(JSON.parse(named.payload)).toMatchObject({
      event: 'UPDATE',
      event_as_sent: 'counter_offer_rejected',
    });
    // The malformed one is kept for the operator, as a POST's would be.
    expect(await t.ledger.inbox.list({ brokerageId: 'acme', statuses: ['dead'] })).toHaveLength(1);
  });

  it("never lets one brokerage's URL touch another's records", async () => {
    expect((await post(t.hookUrl('other', ACME_SECRET), offerEvent(1))).status).toBe(404);
    expect((await post(t.hookUrl('other', OTHER_SECRET), offerEvent(2))).status).toBe(200);
    const stored = await events();
    expect(stored.map((e) => e.brokerageId)).toEqual(['other']);
  });

  it('accepts the previous secret during its grace period only', async () => {
    expect((await post(t.hookUrl('acme', OLD_SECRET), offerEvent(3))).status).toBe(200);
    expect((await post(t.hookUrl('other', 'other-expired-secret-0123456789ab'), offerEvent(3))).status).toBe(
      404,
    );
  });

  it('refuses an oversize body with 413 and stores nothing', async () => {
    const huge = { ...offerEvent(1), offer_memo: 'x'.repeat(300 * 1024) };
    expect((await post(t.hookUrl('acme', ACME_SECRET), huge)).status).toBe(413);
    expect(await events()).toHaveLength(0);
  });

  it('says whose oversize delivery it refused, counts it for that brokerage, and answers a wrong secret 404', async () => {
    const huge = { ...offerEvent(2), offer_memo: 'x'.repeat(300 * 1024) };
    const answer = await post(t.hookUrl('acme', ACME_SECRET), huge);
    expect(answer.status).toBe(413);
    const { message } = (await answer.json()) as { message: string };
    expect(message).toMatch(/^the body of \d+ bytes is over the 262144-byte limit$/);
    expect((await post(t.hookUrl('acme', 'not-the-secret-0123456789abcdef'), huge)).status).toBe(404);
    const metrics = await t.app.get(MetricsService).render();
    expect(metrics).toContain('cash_offer_sync_webhook_events_total{brokerage="acme",result="too_large"} 1');
    expect(await events()).toHaveLength(0);
    // The connection is still good for the next delivery.
    expect((await post(t.hookUrl('acme', ACME_SECRET), offerEvent(2))).status).toBe(200);
  });

  // A gzip body of a few hundred bytes that inflates past the limit used to be refused as "the body of 443
  // bytes is over the 262144-byte limit", a size under the limit it named.
  it('says a compressed delivery inflates past the limit, naming its size as sent and its encoding', async () => {
    const huge = { ...offerEvent(3), offer_memo: 'x'.repeat(300 * 1024) };
    const sent = gzipSync(JSON.stringify(huge));
    const answer = await fetch(t.hookUrl('acme', ACME_SECRET), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: sent,
    });
    expect(answer.status).toBe(413);
    expect(((await answer.json()) as { message: string }).message).toBe(
      `the body, ${sent.length} bytes as sent (gzip), inflates past the 262144-byte limit`,
    );
    expect(await events()).toHaveLength(0);
    const small = gzipSync(JSON.stringify(offerEvent(3)));
    const taken = await fetch(t.hookUrl('acme', ACME_SECRET), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: small,
    });
    expect(taken.status).toBe(200);
    expect(await events()).toHaveLength(1);
  });

  it('refuses malformed JSON with 400 and a reason, and keeps it dead-lettered for the operator', async () => {
    const answer = await post(t.hookUrl('acme', ACME_SECRET), '{"event":"new_offer",');
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { message: string }).message).toContain('not valid JSON');
    const [dead] = await events();
    expect(dead).toMatchObject({
      brokerageId: 'acme',
      status: 'dead',
      eventType: 'malformed',
      payload: '{"event":"new_offer",',
    });
    expect(dead.deadReason).toContain('not valid JSON');
  });

  // A sender retrying one malformed body used to leave one dead row per retry.
  it('keeps one malformed body delivered six times as one dead row, counted once', async () => {
    const body = '{"event":"new_offer", "offer_id": 12,';
    for (let i = 0; i < 6; i++) expect((await post(t.hookUrl('acme', ACME_SECRET), body)).status).toBe(400);
    expect(await post(t.hookUrl('acme', ACME_SECRET), `${body} `)).toHaveProperty('status', 400);
    const dead = (await events()).filter((e) => e.status === 'dead');
    expect(dead.map((e) => e.payload).sort()).toEqual([body, `${body} `]);
    const metrics = await t.app.get(MetricsService).render();
    expect(metrics).toContain('cash_offer_sync_webhook_events_total{brokerage="acme",result="dead"} 2');
    expect(metrics).toContain('cash_offer_sync_webhook_events_total{brokerage="acme",result="duplicate"} 5');
  });

  // This body used to overflow the stack in canonicalJson and answered 500, stored nowhere.
  it('refuses a 60,000-deep body with 400 and keeps it, once, as a dead letter', async () => {
    const deep = `{"event":"new_offer","x":${'['.repeat(60_000)}${']'.repeat(60_000)}}`;
    for (let i = 0; i < 2; i++) {
      const answer = await post(t.hookUrl('acme', ACME_SECRET), deep);
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { message: string }).message).toBe(
        'the body nests deeper than 32 levels of arrays and objects',
      );
    }
    const stored = await events();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ status: 'dead', eventType: 'malformed', payload: deep });
  });

  it('refuses a known event with broken ids (400, dead-lettered) but stores unknown event types flagged', async () => {
    expect((await post(t.hookUrl('acme', ACME_SECRET), { event: 'new_offer', offer_id: 'abc' })).status).toBe(
      400,
    );
    expect(
      (await post(t.hookUrl('acme', ACME_SECRET), { event: 'offer_withdrawn', offer_id: 4 })).status,
    ).toBe(200);
    const byType = Object.fromEntries((await events()).map((e) => [e.eventType, e.status]));
    expect(byType).toEqual({ malformed: 'dead', offer_withdrawn: 'flagged' });
    // The reason is kept with the event for `cli inbox` and the status page, not only logged.
    const flagged = (await events()).find((e) => e.status === 'flagged');
    expect(flagged?.deadReason).toBe('unknown event type "offer_withdrawn"');
  });

  it('reads the body as JSON whatever text type it declares (text/plain from fetch, a form from PHP); a body that cannot be JSON text gets 415', async () => {
    for (const [offerId, type] of [
      [5, 'text/plain;charset=UTF-8'],
      [6, 'application/x-www-form-urlencoded'],
      [7, 'application/octet-stream'],
      [8, 'application/json; charset=utf-8'],
    ] as const) {
      const answer = await post(t.hookUrl('acme', ACME_SECRET), JSON.stringify(offerEvent(offerId)), {
        'content-type': type,
      });
      expect([type, answer.status]).toEqual([type, 200]);
    }
    expect((await events()).map((e) => [e.eventType, e.status === 'dead'])).toEqual(
      Array.from({ length: 4 }, () => ['new_offer', false]),
    );
    // Declared as text but not JSON: refused with 400 and kept for the operator, like any malformed body.
    const form = await post(t.hookUrl('acme', ACME_SECRET), 'event=new_offer&offer_id=9', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(400);
    for (const type of ['multipart/form-data; boundary=x', 'image/png']) {
      const answer = await post(t.hookUrl('acme', ACME_SECRET), JSON.stringify(offerEvent(10)), {
        'content-type': type,
      });
      expect(answer.status).toBe(415);
    }
    expect(await events()).toHaveLength(5);
    // A wrong secret still answers 404 whatever the type: the URL space reveals nothing.
    const forged = await post(t.hookUrl('acme', 'not-the-secret'), 'x', { 'content-type': 'image/png' });
    expect(forged.status).toBe(404);
  });
});
