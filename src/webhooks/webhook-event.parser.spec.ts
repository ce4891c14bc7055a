import { parseWebhookBody } from './webhook-event.parser';
import { canonicalJson } from '../common/canonical-json';
import { webhookDedupeKey } from './webhook-dedupe-key';
import { isAcceptedSecret, secretsMatch } from './webhook-secret';

describe('parseWebhookBody', () => {
  it('accepts offer_request_approved and orders it by its request', () => {
    const parsed = parseWebhookBody(
      '{"event":"offer_request_approved","offer_request_id":7,"offer_request_status":"receiving_offers"}',
    );
    expect(parsed).toMatchObject({
      ok: true,
      eventType: 'offer_request_approved',
      orderingKey: 'offer_request:7',
      flagged: false,
    });
  });

  it('accepts new_offer with its ids, amount and status', () => {
    const parsed = parseWebhookBody(
      JSON.stringify({
        event: 'new_offer',
        offer_id: 3,
        offer_request_id: 7,
        offer_amount: 250000,
        offer_status: 'active',
        viewed: false,
      }),
    );
    expect(parsed).toMatchObject({ ok: true, eventType: 'new_offer', flagged: false });
  });

  it('refuses a known event whose ids are missing or mistyped, naming the fields', () => {
    const parsed = parseWebhookBody(
      JSON.stringify({ event: 'new_offer', offer_id: 'x', offer_request_id: 7 }),
    );
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.reason).toContain('new_offer.offer_id must be a number');
      expect(parsed.reason).toContain('new_offer.offer_amount is required');
    }
  });

  // JSON's 1e400 parses to Infinity, which used to be told as "got null" (JSON.stringify's word).
  it('names a number too large for JSON as it was read, not as null', () => {
    const parsed = parseWebhookBody(
      '{"event":"new_offer","offer_id":1e400,"offer_request_id":7,"offer_amount":250000,"offer_status":"active"}',
    );
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toContain('new_offer.offer_id must be a number; got Infinity');
  });

  it('stores unknown event types flagged rather than refusing them', () => {
    expect(parseWebhookBody('{"event":"offer_withdrawn","offer_id":1}')).toMatchObject({
      ok: true,
      flagged: true,
    });
    expect(parseWebhookBody('{"hello":1}')).toMatchObject({ ok: true, eventType: 'unknown', flagged: true });
  });

  it('applies UPDATE callbacks that carry an id and flags those that do not', () => {
    expect(parseWebhookBody('{"event":"UPDATE","counter_offer_id":4,"offer_id":3}')).toMatchObject({
      ok: true,
      flagged: false,
    });
    expect(parseWebhookBody('{"event":"UPDATE"}')).toMatchObject({ ok: true, flagged: true });
  });

  it.each([
    ['', 'the body is empty'],
    ['{"event":', 'not valid JSON'],
    ['[1,2]', 'must be a JSON object'],
    ['"text"', 'must be a JSON object'],
  ])('refuses %j with a clear reason', (body, reason) => {
    const parsed = parseWebhookBody(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toContain(reason);
  });
});

describe('dedupe keys', () => {
  it('ignore key order and differ by brokerage and content', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [{ f: 1, e: 2 }] } })).toBe(
      '{"a":{"c":[{"e":2,"f":1}],"d":2},"b":1}',
    );
    const a = webhookDedupeKey('acme', { event: 'x', offer_id: 1 });
    expect(webhookDedupeKey('acme', { offer_id: 1, event: 'x' })).toBe(a);
    expect(webhookDedupeKey('other', { event: 'x', offer_id: 1 })).not.toBe(a);
    expect(webhookDedupeKey('acme', { event: 'x', offer_id: 2 })).not.toBe(a);
  });
});

describe('webhook secrets', () => {
  const now = new Date('2026-06-01T00:00:00Z');
  it('compares in constant time regardless of length', () => {
    expect(secretsMatch('abc', 'abc')).toBe(true);
    expect(secretsMatch('abc', 'abcd')).toBe(false);
  });

  it('accepts the previous secret only during its grace period', () => {
    const secrets = { current: 'new', previous: 'old', previousValidUntil: new Date('2026-06-02T00:00:00Z') };
    expect(isAcceptedSecret('new', secrets, now)).toBe(true);
    expect(isAcceptedSecret('old', secrets, now)).toBe(true);
    expect(isAcceptedSecret('old', secrets, new Date('2026-06-03T00:00:00Z'))).toBe(false);
    expect(isAcceptedSecret('nope', secrets, now)).toBe(false);
    expect(isAcceptedSecret('new', { current: 'new' }, now)).toBe(true);
  });
});
