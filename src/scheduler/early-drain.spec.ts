import { emptyCounts } from './job.types';
import { queuedRemoteWrites } from './early-drain';

describe('queuedRemoteWrites: when a run asks for an early outbox drain', () => {
  const counts = (created: number, updated: number) => ({ ...emptyCounts(), created, updated });
  it.each([
    ['crm-changes queued a decision', 'crm-changes', 'succeeded', counts(1, 0), true],
    ['crm-changes changed a record', 'crm-changes', 'succeeded', counts(0, 2), true],
    ['nothing new', 'crm-changes', 'succeeded', counts(0, 0), false],
    ['a run that failed after queuing some', 'crm-changes', 'failed', counts(1, 0), true],
    ['the drain itself', 'outbox-drain', 'succeeded', counts(3, 0), false],
  ] as const)('%s', (_name, job, _status, c, expected) => {
    expect(queuedRemoteWrites({ job, counts: c })).toBe(expected);
  });
});
