import { CashOfferError, type CashOfferErrorCode } from '../../cash-offer/cash-offer.error';
import { CrmError } from '../../crm/crm.error';
import { AwaitingEvidenceError } from './awaiting-evidence.error';
import { outboxDecision } from './outbox-decision';

const service = (code: CashOfferErrorCode, status?: number, retryAfterMs?: number) =>
  new CashOfferError({ code, operation: 'POST /offer-requests', message: code, status, retryAfterMs });

describe('outboxDecision', () => {
  it.each([
    ['an answer lost after sending', service('OUTCOME_UNKNOWN'), true, 1, { action: 'reconcile' }],
    [
      'the service refusing the key',
      service('AUTH_FAILED', 401),
      true,
      1,
      { action: 'wait-for-credentials' },
    ],
    [
      'the service refusing the record (403)',
      service('AUTH_FAILED', 403),
      true,
      1,
      { action: 'dead', code: 'AUTH_FAILED', gaveUp: false },
    ],
    [
      'an invalid record',
      service('INVALID_RECORD', 400),
      true,
      1,
      { action: 'dead', code: 'INVALID_RECORD', gaveUp: false },
    ],
    [
      'an invalid record caught before sending',
      service('INVALID_RECORD'),
      false,
      0,
      { action: 'dead', code: 'INVALID_RECORD', gaveUp: false },
    ],
    [
      'a rate limit with Retry-After',
      service('RATE_LIMITED', 429, 3000),
      true,
      2,
      { action: 'retry', retryAfterMs: 3000 },
    ],
    ['an outage, attempts left', service('UNAVAILABLE', 503), true, 3, { action: 'retry' }],
    [
      'an outage, no attempts left',
      service('UNAVAILABLE', 503),
      true,
      10,
      { action: 'dead', code: 'UNAVAILABLE', gaveUp: true },
    ],
    ['held back by the breaker', service('UNAVAILABLE'), false, 0, { action: 'defer' }],
    [
      'waiting for the service to name what it made, past the last attempt',
      new AwaitingEvidenceError('the request id is not known yet'),
      true,
      25,
      { action: 'retry' },
    ],
    [
      'a CRM write-back refused for a bad record',
      new CrmError('INVALID_RECORD', 'no such stage'),
      false,
      0,
      { action: 'dead', code: 'INVALID_RECORD', gaveUp: false },
    ],
    [
      'a CRM refusing the token',
      new CrmError('AUTH_FAILED', 'the CRM refused the token (401)', { status: 401 }),
      false,
      0,
      { action: 'wait-for-credentials' },
    ],
    [
      'a CRM missing a scope',
      new CrmError('AUTH_FAILED', 'lacks crm.objects.deals.write', { status: 403 }),
      false,
      0,
      { action: 'wait-for-credentials' },
    ],
    [
      'a CRM rate limit',
      new CrmError('RATE_LIMITED', 'slow down', { retryAfterMs: 1000 }),
      false,
      0,
      { action: 'defer', retryAfterMs: 1000 },
    ],
    [
      'a CRM task create answered 502 after it left (the CRM may have made it)',
      new CrmError('OUTCOME_UNKNOWN', 'create task offer:7:lead:2h: 502; it may have been made', {
        status: 502,
      }),
      true,
      1,
      { action: 'reconcile' },
    ],
    ['something else, sent', new Error('socket hang up'), true, 1, { action: 'retry' }],
    [
      'something else, sent, no attempts left',
      new Error('socket hang up'),
      true,
      10,
      { action: 'dead', code: 'UNAVAILABLE', gaveUp: true },
    ],
  ] as const)('%s', (_name, error, sent, attempts, expected) => {
    expect(outboxDecision({ error, sent, attempts, maxAttempts: 10 })).toEqual(expected);
  });

  it("waits for the key after a 403 the key probe showed to be the key's", () => {
    const forbidden = service('AUTH_FAILED', 403);
    const decide = (error: CashOfferError) =>
      outboxDecision({ error, sent: true, attempts: 1, maxAttempts: 10 });
    expect(decide(forbidden.asKeyRefused('refused on the active list too'))).toEqual({
      action: 'wait-for-credentials',
    });
    expect(decide(forbidden)).toEqual({ action: 'dead', code: 'AUTH_FAILED', gaveUp: false });
  });
});
