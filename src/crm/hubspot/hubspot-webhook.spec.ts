import { Signature } from '@hubspot/api-client';
import {
  checkHubSpotSignatureV3,
  hubSpotSignatureV3,
  isHubSpotChangeEvent,
  parseHubSpotWebhook,
  type HubSpotSignedRequest,
} from './hubspot-webhook';

const SECRET = 'yyyyyyyy-yyyy-yyyy-yyyy-yyyyyyyyyyyy';
const BODY =
  '[{"eventId":1,"subscriptionId":12345,"portalId":62515,"appId":54321,"occurredAt":1564113600000,' +
  '"subscriptionType":"deal.propertyChange","attemptNumber":0,"objectId":123,"propertyName":"dealstage",' +
  '"propertyValue":"closedwon","changeSource":"CRM"}]';
const TIMESTAMP = 1564113600000;
const request: HubSpotSignedRequest = {
  method: 'POST',
  uri: 'https://sync.example.com/webhooks/crm/hubspot/acme',
  rawBody: Buffer.from(BODY),
  timestamp: String(TIMESTAMP),
};
// Computed outside this code base: `printf '%s' "POST<uri><body><timestamp>" | openssl dgst -sha256
// -hmac <secret> -binary | base64`.
const KNOWN = 'h19/2oh9FYqA/Yp3m4ywVWuuzUMtHWc7gY0MLMy2gHY=';

describe('HubSpot webhook signature v3', () => {
  it('is the base64 HMAC-SHA256 of method + URI + body + timestamp (a vector made with openssl)', () => {
    expect(hubSpotSignatureV3(request, SECRET)).toBe(KNOWN);
  });

  it("agrees with the official SDK's Signature (v3), which the daemon does not call: it compares with === and reads Date.now()", () => {
    const fromSdk = Signature.getSignature('POST', 'v3', {
      signature: '',
      clientSecret: SECRET,
      requestBody: BODY,
      url: request.uri,
      timestamp: TIMESTAMP,
    });
    expect(fromSdk).toBe(KNOWN);
    const now = Date.now();
    const fresh = { ...request, timestamp: String(now) };
    const signature = hubSpotSignatureV3(fresh, SECRET);
    expect(
      Signature.isValid({
        signatureVersion: 'v3',
        signature,
        clientSecret: SECRET,
        requestBody: BODY,
        url: fresh.uri,
        method: 'POST',
        timestamp: now,
      }),
    ).toBe(true);
    expect(checkHubSpotSignatureV3(fresh, signature, SECRET, now)).toBe('valid');
  });

  it('accepts a true signature within 5 minutes either way', () => {
    expect(checkHubSpotSignatureV3(request, KNOWN, SECRET, TIMESTAMP)).toBe('valid');
    expect(checkHubSpotSignatureV3(request, KNOWN, SECRET, TIMESTAMP + 5 * 60_000)).toBe('valid');
    expect(checkHubSpotSignatureV3(request, KNOWN, SECRET, TIMESTAMP - 5 * 60_000)).toBe('valid');
  });

  it('calls a true signature on an older (or far future) timestamp stale', () => {
    expect(checkHubSpotSignatureV3(request, KNOWN, SECRET, TIMESTAMP + 5 * 60_000 + 1)).toBe('stale');
    expect(checkHubSpotSignatureV3(request, KNOWN, SECRET, TIMESTAMP - 5 * 60_000 - 1)).toBe('stale');
  });

  it('calls forged: another secret, body, URI, method or timestamp; a missing or malformed header', () => {
    const at = TIMESTAMP;
    expect(checkHubSpotSignatureV3(request, KNOWN, 'other-secret', at)).toBe('forged');
    expect(checkHubSpotSignatureV3({ ...request, rawBody: Buffer.from(`${BODY} `) }, KNOWN, SECRET, at)).toBe(
      'forged',
    );
    expect(checkHubSpotSignatureV3({ ...request, uri: `${request.uri}x` }, KNOWN, SECRET, at)).toBe('forged');
    expect(checkHubSpotSignatureV3({ ...request, method: 'PUT' }, KNOWN, SECRET, at)).toBe('forged');
    expect(checkHubSpotSignatureV3({ ...request, timestamp: String(at + 1) }, KNOWN, SECRET, at)).toBe(
      'forged',
    );
    expect(checkHubSpotSignatureV3({ ...request, timestamp: 'soon' }, KNOWN, SECRET, at)).toBe('forged');
    expect(checkHubSpotSignatureV3(request, undefined, SECRET, at)).toBe('forged');
    expect(checkHubSpotSignatureV3(request, KNOWN.slice(1), SECRET, at)).toBe('forged');
    expect(checkHubSpotSignatureV3(request, Buffer.from(KNOWN).toString('hex'), SECRET, at)).toBe('forged');
  });
});

describe('HubSpot webhook batch', () => {
  const parse = (value: unknown) =>
    parseHubSpotWebhook(Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)));
  const event = {
    eventId: 100,
    subscriptionId: 1,
    portalId: 62515,
    appId: 54321,
    occurredAt: 1564113600000,
    subscriptionType: 'object.propertyChange',
    objectTypeId: '0-3',
    attemptNumber: 0,
    objectId: 123,
    propertyName: 'dealstage',
    propertyValue: 'x',
    changeSource: 'CRM',
  };

  it('reads the ids, the subscription and the property of each event', () => {
    expect(parse([event, { ...event, eventId: '101', subscriptionType: 'deal.creation' }])).toEqual({
      ok: true,
      events: [
        {
          eventId: '100',
          subscriptionType: 'object.propertyChange',
          objectId: '123',
          objectTypeId: '0-3',
          propertyName: 'dealstage',
          changeSource: 'CRM',
        },
        {
          eventId: '101',
          subscriptionType: 'deal.creation',
          objectId: '123',
          objectTypeId: '0-3',
          propertyName: 'dealstage',
          changeSource: 'CRM',
        },
      ],
    });
  });

  it('refuses what is not a batch of events, naming the field', () => {
    const reason = (value: unknown) => {
      const parsed = parse(value);
      return parsed.ok ? 'ok' : parsed.reason;
    };
    expect(reason('{nope')).toContain('not JSON');
    expect(reason(event)).toContain('not a JSON array');
    expect(reason([])).toContain('no event');
    expect(reason([1])).toContain('event 0 is not a JSON object');
    expect(reason([{ ...event, eventId: 'abc' }])).toContain('eventId');
    expect(reason([{ ...event, eventId: -1 }])).toContain('eventId');
    expect(reason([{ ...event, objectId: { $gt: 1 } }])).toContain('objectId');
    expect(reason([{ ...event, subscriptionType: 7 }])).toContain('subscriptionType');
    expect(reason([{ ...event, portalId: '62515' }])).toContain('portalId');
    expect(reason([{ ...event, occurredAt: null }])).toContain('occurredAt');
    expect(reason([{ ...event, propertyName: ['a'] }])).toContain('propertyName');
    expect(reason(Array(201).fill(event))).toContain('more than 200');
  });

  it('takes deal and contact events as changes the reader reads; others are not', () => {
    const of = (subscriptionType: string, objectTypeId?: string) =>
      isHubSpotChangeEvent({ eventId: '1', objectId: '1', subscriptionType, objectTypeId });
    expect(of('deal.propertyChange')).toBe(true);
    expect(of('contact.creation')).toBe(true);
    expect(of('object.propertyChange', '0-3')).toBe(true);
    expect(of('object.propertyChange', '0-1')).toBe(true);
    expect(of('object.propertyChange', '0-2')).toBe(false);
    expect(of('company.propertyChange')).toBe(false);
  });
});
