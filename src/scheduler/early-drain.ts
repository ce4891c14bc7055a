import type { RunOutcome } from './job-runner.service';

// A run that created or updated records queued their remote writes in the outbox: the drain is
// asked for at once (coalesced with one already waiting) rather than left to its next tick, so an
// agent's action reaches the service in the time of the calls, not of the cron spacing.
export function queuedRemoteWrites(outcome: Pick<RunOutcome, 'job' | 'status' | 'counts'>): boolean {
  return (
    outcome.job !== 'outbox-drain' &&
    outcome.status === 'succeeded' &&
    outcome.counts.created + outcome.counts.updated > 0
  );
}
