import { outboxRetryDelayMs, splitRecordRef } from './outbox-retry.policy';

describe('outboxRetryDelayMs', () => {
  it('doubles from 5 s with jitter in the upper half, capped at 15 minutes', () => {
    expect(outboxRetryDelayMs(1, undefined, () => 0)).toBe(2_500);
    expect(outboxRetryDelayMs(1, undefined, () => 1)).toBe(5_000);
    expect(outboxRetryDelayMs(3, undefined, () => 1)).toBe(20_000);
    expect(outboxRetryDelayMs(30, undefined, () => 1)).toBe(15 * 60_000);
  });

  it("never retries sooner than the service's Retry-After", () => {
    expect(outboxRetryDelayMs(1, 90_000, () => 0)).toBe(90_000);
  });
});

describe('splitRecordRef', () => {
  it('splits at the first colon only', () => {
    expect(splitRecordRef('deal:123')).toEqual({ kind: 'deal', id: '123' });
    expect(splitRecordRef('offer:a:b')).toEqual({ kind: 'offer', id: 'a:b' });
    expect(splitRecordRef('plain')).toEqual({ kind: 'record', id: 'plain' });
  });
});
