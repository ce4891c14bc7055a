import type { Ledger } from '../../ledger';
import type { JobRunner, RunOptions, RunOutcome } from '../job-runner.service';
import type { JobName } from '../job.types';
import { SingletonTakeover } from './singleton-takeover';

// A run is told to stop this long before its lease ends, so it checkpoints before pg-boss hands the
// job to another worker.
const LEASE_MARGIN_SECONDS = 3;

// One (brokerage, job) run while holding its pg-boss job, by a worker or by `sync --once`: first
// recover what an earlier holder left half-done, then run, stopping before the lease runs out.
export class SingletonRun {
  private readonly takeover: SingletonTakeover;

  constructor(
    ledger: Ledger,
    private readonly runner: JobRunner,
    private readonly leaseSeconds: number,
  ) {
    this.takeover = new SingletonTakeover(ledger);
  }

  async run(brokerageId: string, job: JobName, options: RunOptions = {}): Promise<RunOutcome> {
    await this.takeover.recover(brokerageId, job);
    const lease = AbortSignal.timeout(Math.max(1, this.leaseSeconds - LEASE_MARGIN_SECONDS) * 1000);
    const signal = options.signal ? AbortSignal.any([options.signal, lease]) : lease;
    return this.runner.run(brokerageId, job, { ...options, signal });
  }
}
