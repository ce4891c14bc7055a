import { JobBackoff, MAX_SKIPPED_TICKS } from './job-backoff';

describe('JobBackoff', () => {
  it('skips 1, 2, 4 ... ticks after consecutive failures and resets on success', () => {
    const backoff = new JobBackoff();
    const skippedAfter = (): number => {
      let skipped = 0;
      while (backoff.shouldSkip('a:job')) skipped += 1;
      return skipped;
    };
    backoff.recordFailure('a:job');
    expect(skippedAfter()).toBe(1);
    backoff.recordFailure('a:job');
    expect(skippedAfter()).toBe(2);
    backoff.recordFailure('a:job');
    expect(skippedAfter()).toBe(4);
    backoff.recordSuccess('a:job');
    expect(backoff.shouldSkip('a:job')).toBe(false);
    expect(backoff.state('a:job').consecutiveFailures).toBe(0);
  });

  it('caps the skipped ticks and keeps keys independent', () => {
    const backoff = new JobBackoff();
    for (let i = 0; i < 20; i++) backoff.recordFailure('a:job');
    expect(backoff.state('a:job').ticksToSkip).toBe(MAX_SKIPPED_TICKS);
    expect(backoff.shouldSkip('b:job')).toBe(false);
    backoff.forget('a:');
    expect(backoff.shouldSkip('a:job')).toBe(false);
  });
});
