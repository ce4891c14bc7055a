import { createHmac } from 'node:crypto';
import { isValidFubSignature, parseFubWebhook } from './followupboss-webhook';

const KEY = 'system-key-0000';
const body = Buffer.from(
  JSON.stringify({
    eventId: 'e-1',
    eventCreated: '2026-01-01T00:00:00Z',
    event: 'dealsUpdated',
    resourceIds: [7],
    uri: 'x',
  }),
);
// What FUB sends, computed independently of the code under test.
const signed = createHmac('sha256', KEY).update(body.toString('base64')).digest('hex');

describe('Follow Up Boss webhook', () => {
  it('accepts the hex HMAC-SHA256 of the base64 body keyed with the system key, in either case', () => {
    expect(isValidFubSignature(body, signed, KEY)).toBe(true);
    expect(isValidFubSignature(body, signed.toUpperCase(), KEY)).toBe(true);
  });

  it('refuses another key, another body, a missing or malformed header', () => {
    expect(isValidFubSignature(body, signed, 'other-key')).toBe(false);
    expect(isValidFubSignature(Buffer.concat([body, Buffer.from(' ')]), signed, KEY)).toBe(false);
    expect(isValidFubSignature(body, undefined, KEY)).toBe(false);
    expect(isValidFubSignature(body, signed.slice(2), KEY)).toBe(false);
    expect(isValidFubSignature(body, `${signed.slice(0, 63)}z`, KEY)).toBe(false);
  });

  it('reads eventId, event and resourceIds; refuses what is not that shape, naming the field', () => {
    expect(parseFubWebhook(body)).toEqual({
      ok: true,
      payload: { eventId: 'e-1', event: 'dealsUpdated', resourceIds: [7] },
    });
    const reason = (value: unknown): string => {
      const parsed = parseFubWebhook(Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)));
      return parsed.ok ? 'ok' : parsed.reason;
    };
    expect(reason('{nope')).toContain('not JSON');
    expect(reason([1])).toContain('JSON object');
    expect(reason({ event: 'dealsUpdated' })).toContain('eventId');
    expect(reason({ eventId: 'x'.repeat(201), event: 'dealsUpdated' })).toContain('eventId');
    expect(reason({ eventId: 'e', event: '<script>' })).toContain('event');
    expect(reason({ eventId: 'e', event: 'dealsUpdated', resourceIds: ['1'] })).toContain('resourceIds');
  });
});
