import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { queuedRemoteWrites } from './early-drain';
import { EarlyRunTrigger, type EarlyRunOutcome } from './early-run.trigger';
import { JobBackoff } from './job-backoff';
import { jobKey } from './job-key';
import { JobRunner } from './job-runner.service';
import type { JobName } from './job.types';

// Early runs on one process (the SQLite ledger): at most one waits per (brokerage, job). It starts
// when the run in progress (cron's, or an earlier early one) ends, so a change that arrived during a
// run the run may have read past is still picked up, and a burst of requests costs one run.
@Injectable()
export class LocalEarlyRunTrigger extends EarlyRunTrigger implements OnModuleDestroy {
  private readonly logger = new Logger('EarlyRuns');
  private readonly waiting = new Set<string>();
  private readonly loops = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    private readonly runner: JobRunner,
    private readonly backoff: JobBackoff,
  ) {
    super();
  }

  request(brokerageId: string, job: JobName): Promise<EarlyRunOutcome> {
    const key = jobKey(brokerageId, job);
    // A failing job keeps cron's backoff; notifications must not turn into a retry storm.
    if (this.closed || this.backoff.state(key).consecutiveFailures > 0) return Promise.resolve('skipped');
    if (this.waiting.has(key)) return Promise.resolve('coalesced');
    this.waiting.add(key);
    if (!this.loops.has(key)) {
      const loop = this.drain(brokerageId, job, key)
        .catch((error: unknown) =>
          this.logger.error(`early run of ${job} for ${brokerageId} failed: ${String(error)}`),
        )
        .finally(() => this.loops.delete(key));
      this.loops.set(key, loop);
    }
    return Promise.resolve('queued');
  }

  // Nothing new starts; a run already started is JobRunner's to stop.
  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    this.waiting.clear();
    await Promise.allSettled([...this.loops.values()]);
  }

  private async drain(brokerageId: string, job: JobName, key: string): Promise<void> {
    while (this.waiting.has(key) && !this.closed) {
      await this.runner.whenIdle(brokerageId, job);
      this.waiting.delete(key);
      // A cron tick may win the slot first; its run started after the request, so it sees the change.
      const outcome = await this.runner.run(brokerageId, job);
      if (outcome.status === 'failed') this.backoff.recordFailure(key);
      else if (outcome.status === 'succeeded') this.backoff.recordSuccess(key);
      if (queuedRemoteWrites(outcome)) void this.request(brokerageId, 'outbox-drain');
    }
  }
}
