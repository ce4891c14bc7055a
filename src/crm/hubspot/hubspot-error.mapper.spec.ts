import { CrmError } from '../crm.error';
import { fromStandardError, toCrmError } from './hubspot-error.mapper';

const apiException = (code: number, body: unknown, headers: Record<string, string> = {}) => ({
  code,
  body,
  headers,
});

describe('toCrmError', () => {
  it('turns a property validation failure into INVALID_RECORD naming the field in plain words', () => {
    const error = toCrmError(
      apiException(400, {
        category: 'VALIDATION_ERROR',
        message: 'Property values were not valid: [...]',
        errors: [{ message: 'lots is not a valid number', context: { propertyName: ['amount'] } }],
      }),
      'update deal 12',
    );
    expect(error).toBeInstanceOf(CrmError);
    expect(error.code).toBe('INVALID_RECORD');
    expect(error.retryable).toBe(false);
    expect(error.fields).toEqual(['amount']);
    expect(error.message).toBe('update deal 12: amount: lots is not a valid number (HubSpot 400)');
  });

  it.each([
    [401, 'INVALID_AUTHENTICATION', 'AUTH_FAILED'],
    [403, 'MISSING_SCOPES', 'AUTH_FAILED'],
    [404, 'OBJECT_NOT_FOUND', 'NOT_FOUND'],
    [409, 'CONFLICT', 'CONFLICT'],
    [502, undefined, 'UNAVAILABLE'],
  ])('maps HTTP %i (%s) to %s', (status, category, code) => {
    expect(toCrmError(apiException(status, { category, message: 'x' }), 'call').code).toBe(code);
  });

  it('waits on a burst 429 by the window the headers describe, and not at all on the daily limit', () => {
    const burst = toCrmError(
      apiException(
        429,
        { message: 'You have reached your ten_secondly_rolling limit.' },
        { 'x-hubspot-ratelimit-interval-milliseconds': '10000', 'x-hubspot-ratelimit-max': '100' },
      ),
      'call',
    );
    expect(burst).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retryAfterMs: 100 });
    const secondly = toCrmError(
      apiException(429, { message: 'You have reached your secondly limit.' }),
      'search',
    );
    expect(secondly.retryAfterMs).toBe(1000);
    const daily = toCrmError(
      apiException(429, { message: 'You have reached your daily limit.', policyName: 'DAILY' }),
      'call',
    );
    expect(daily.code).toBe('RATE_LIMITED');
    expect(daily.retryAfterMs).toBeUndefined();
  });

  it("waits out HubSpot's documented 423 Locked and 477 Migration in Progress instead of taking them for a refused record", () => {
    const locked = toCrmError(apiException(423, { status: 'error', message: 'Locked' }), 'upsert 100 deals');
    expect(locked).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retryAfterMs: 2000, status: 423 });
    const lockedSaid = toCrmError(apiException(423, { message: 'Locked' }, { 'retry-after': '5' }), 'call');
    expect(lockedSaid.retryAfterMs).toBe(5000);
    const migrating = toCrmError(
      apiException(477, { message: 'Migration in progress' }, { 'retry-after': '3600' }),
      'update deal 12',
    );
    expect(migrating).toMatchObject({ code: 'UNAVAILABLE', retryable: true, retryAfterMs: 3_600_000 });
    expect(
      toCrmError(apiException(477, { message: 'Migration in progress' }), 'call').retryAfterMs,
    ).toBeUndefined();
  });

  it('treats network failures as UNAVAILABLE and keeps a CrmError as it is', () => {
    const network = toCrmError(
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      'list pipelines',
    );
    expect(network.code).toBe('UNAVAILABLE');
    expect(network.message).toContain('ECONNREFUSED');
    const own = new CrmError('CONFLICT', 'already');
    expect(toCrmError(own, 'x')).toBe(own);
  });

  it('reads one 207 entry for one record', () => {
    const error = fromStandardError(
      { category: 'CONFLICT', message: 'cash_offer_offer_id must be unique' },
      'o-1',
      'deal cash_offer_offer_id=o-1',
    );
    expect(error).toMatchObject({ code: 'CONFLICT', record: 'o-1' });
    expect(error.message).toBe('deal cash_offer_offer_id=o-1: cash_offer_offer_id must be unique');
  });
});
