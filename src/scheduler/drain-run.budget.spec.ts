import { leftForNextRun } from './drain-run.budget';

describe('leftForNextRun', () => {
  it('names how much waits and in which states, leaving out the empty ones', () => {
    expect(
      leftForNextRun('outbox command', {
        pending: 12,
        'failed, to be retried': 0,
        'of unknown outcome, to be looked up': 2,
      }),
    ).toBe(
      'the run ended on its time budget with 14 outbox commands still waiting (12 pending, 2 of unknown outcome, to be looked up); the next run takes them as they come due',
    );
    expect(leftForNextRun('webhook event', { pending: 1, 'failed, to be retried': 0 })).toBe(
      'the run ended on its time budget with 1 webhook event still waiting (1 pending); the next run takes them as they come due',
    );
  });

  it('says nothing when nothing waits', () => {
    expect(leftForNextRun('webhook event', { pending: 0, 'failed, to be retried': 0 })).toBeUndefined();
  });
});
