import type { RunOutcome } from './job-runner.service';

// A run that created or updated records queued their remote writes in the outbox: the drain is
// asked for at once (coalesced with one already waiting) rather than left to its next tick, so an
// agent's action reaches the service in the time of the calls, not of the cron spacing. A run that
// failed after queuing some is drained early too. Both schedulers (cron, pg-boss) ask this.
export function queuedRemoteWrites(outcome: Pick<RunOutcome, 'job' | 'counts'>): boolean {
  return outcome.job !== 'outbox-drain' && outcome.counts.created + outcome.counts.updated > 0;
}
