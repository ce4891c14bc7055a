import { CashOfferError } from './cash-offer.error';
import { OPERATIONS } from './cash-offer.operations';
import { CLIENT_CLOSED } from './cash-offer.transport';
import {
  classifyHttpFailure,
  classifyNetworkFailure,
  countsAgainstBreaker,
  isRetryableAttempt,
  violationsFromMessage,
} from './failure.classifier';

const create = OPERATIONS.createOfferRequest;
const list = OPERATIONS.listActiveOfferRequests;
const body = (status: number, message: string) => JSON.stringify({ error: status, message });

describe('classifyHttpFailure', () => {
  it.each([
    [400, 'INVALID_RECORD'],
    [401, 'AUTH_FAILED'],
    [403, 'AUTH_FAILED'],
    [404, 'NOT_FOUND'],
    [409, 'CONFLICT'],
    [413, 'INVALID_RECORD'],
    [429, 'RATE_LIMITED'],
    [500, 'UNAVAILABLE'],
    [503, 'UNAVAILABLE'],
  ])('maps %i on a GET to %s', (status, code) => {
    const error = classifyHttpFailure(list, { status, body: body(status, 'why') }, [['k', '[redacted]']]);
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.serviceError).toEqual({ error: status, message: 'why' });
    expect(error.operation).toBe('GET /active-offer-requests');
  });

  it('makes a 5xx on a create an unknown outcome, not retryable', () => {
    const error = classifyHttpFailure(create, { status: 502, body: '' }, [['k', '[redacted]']]);
    expect(error.code).toBe('OUTCOME_UNKNOWN');
    expect(error.retryable).toBe(false);
    expect(isRetryableAttempt(error, 60_000)).toBe(false);
    expect(countsAgainstBreaker(error)).toBe(true);
  });

  it('keeps a 429 on a create retryable: the service did not process it', () => {
    const error = classifyHttpFailure(create, { status: 429, body: '', retryAfterMs: 2000 }, [
      ['k', '[redacted]'],
    ]);
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.retryAfterMs).toBe(2000);
    expect(isRetryableAttempt(error, 60_000)).toBe(true);
    expect(isRetryableAttempt(error, 1000)).toBe(false);
    expect(countsAgainstBreaker(error)).toBe(false);
  });

  it.each([
    [400, 'Invalid API key'],
    [400, 'the Authorization header with your API key is missing'],
    [422, 'Unauthorized'],
    [404, 'no account for these credentials'],
    [403, 'the API key in the Authorization header is not valid'],
  ])('reads a %i that says "%s" as the key refused', (status, message) => {
    const error = classifyHttpFailure(list, { status, body: body(status, message) }, [
      ['a-key-0123456789', '[redacted]'],
    ]);
    expect([error.code, error.keyRefused, error.status]).toEqual(['AUTH_FAILED', true, status]);
  });

  it('keeps a 400 about a record a record refusal, and a 403 a refusal of role or record', () => {
    const record = classifyHttpFailure(
      create,
      { status: 400, body: body(400, 'property.City is required') },
      [],
    );
    expect([record.code, record.keyRefused]).toEqual(['INVALID_RECORD', false]);
    const role = classifyHttpFailure(list, { status: 403, body: body(403, 'buyers only') }, []);
    expect([role.code, role.keyRefused]).toEqual(['AUTH_FAILED', false]);
    const bare = classifyHttpFailure(list, { status: 403, body: body(403, 'Forbidden') }, []);
    expect([bare.code, bare.keyRefused]).toEqual(['AUTH_FAILED', false]);
    const key = classifyHttpFailure(list, { status: 401, body: '' }, []);
    expect(key.keyRefused).toBe(true);
  });

  it('names each field the service refused', () => {
    const message = 'property.StreetName is 57 characters; the service allows 50; limit is 0';
    const error = classifyHttpFailure(create, { status: 400, body: body(400, message) }, [
      ['k', '[redacted]'],
    ]);
    expect(error.violations?.map((v) => v.field)).toEqual(['property.StreetName', 'body', 'limit']);
  });

  it('keeps a non-JSON body as text and redacts the key if echoed', () => {
    const error = classifyHttpFailure(list, { status: 401, body: 'bad key sk-123' }, [
      ['sk-123', '[redacted]'],
    ]);
    expect(error.serviceError?.message).toBe('bad key [redacted]');
    expect(error.message).not.toContain('sk-123');
  });
});

describe('classifyNetworkFailure', () => {
  it.each(['ECONNREFUSED', 'ERR_SOCKET_CONNECTION_TIMEOUT', 'ENOTFOUND'])(
    'retries %s (the request never left), even for a create',
    (code) => {
      const error = classifyNetworkFailure(create, code);
      expect(error.code).toBe('UNAVAILABLE');
      expect(isRetryableAttempt(error, 0)).toBe(true);
    },
  );

  it.each(['ETIMEDOUT', 'ECONNRESET', 'EPIPE'])('makes %s on a create OUTCOME_UNKNOWN', (code) => {
    expect(classifyNetworkFailure(create, code).code).toBe('OUTCOME_UNKNOWN');
    expect(classifyNetworkFailure(list, code).code).toBe('UNAVAILABLE');
  });

  it.each(['DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID'])(
    'treats the TLS failure %s as never sent, and says how to trust a private authority',
    (code) => {
      const error = classifyNetworkFailure(create, code);
      expect(error.code).toBe('UNAVAILABLE');
      expect(error.message).toContain(`TLS certificate was not accepted (${code})`);
      expect(error.message).toContain('NODE_EXTRA_CA_CERTS');
    },
  );

  it('names an answer too long to read, and takes a create that got one as of unknown outcome', () => {
    expect(classifyNetworkFailure(list, 'ERR_ANSWER_TOO_LARGE').message).toBe(
      "GET /active-offer-requests: the service's answer was longer than 64 MiB and was not read",
    );
    expect(classifyNetworkFailure(create, 'ERR_ANSWER_TOO_LARGE').code).toBe('OUTCOME_UNKNOWN');
  });

  it('does not retry errors that are not the client own', () => {
    expect(isRetryableAttempt(new Error('x'), 0)).toBe(false);
    expect(countsAgainstBreaker(new Error('x'))).toBe(false);
  });
});

describe('violationsFromMessage', () => {
  it('splits on "; " and falls back to body for prose', () => {
    expect(violationsFromMessage('Malformed JSON: unexpected token')).toEqual([
      { field: 'body', message: 'Malformed JSON: unexpected token' },
    ]);
  });
});

describe('CashOfferError', () => {
  it('serialises its code and message', () => {
    const error = CashOfferError.invalidRecord('POST /wh', [{ field: 'url', message: 'url is required' }]);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({
      code: 'INVALID_RECORD',
      message: 'POST /wh not sent: url is required',
      retryable: false,
    });
  });
});

describe('a call cut short by our own shutdown', () => {
  it('neither counts against the breaker nor is retried', () => {
    const error = classifyNetworkFailure(list, CLIENT_CLOSED);
    expect(countsAgainstBreaker(error)).toBe(false);
    expect(isRetryableAttempt(error, 60_000)).toBe(false);
    // The same failure from the network does both.
    const reset = classifyNetworkFailure(list, 'ECONNRESET');
    expect(countsAgainstBreaker(reset)).toBe(true);
    expect(isRetryableAttempt(reset, 60_000)).toBe(true);
  });
});
