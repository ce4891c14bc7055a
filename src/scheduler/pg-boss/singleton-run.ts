import type { JobRunner, RunOptions, RunOutcome } from '../job-runner.service';
import type { JobName } from '../job.types';

// A run is told to stop this long before its lease ends, so it checkpoints before pg-boss hands the
// job to another worker.
const LEASE_MARGIN_SECONDS = 3;

// One (brokerage, job) run while holding its pg-boss job, by a worker or by `sync --once`: pg-boss
// runs one job per singleton at a time, so what an earlier holder left marked in progress is taken
// over (the run's claim, RunRepository.claim); the run stops before the lease runs out.
export class SingletonRun {
  constructor(
    private readonly runner: JobRunner,
    private readonly leaseSeconds: number,
  ) {}

  run(brokerageId: string, job: JobName, options: RunOptions = {}): Promise<RunOutcome> {
    const lease = AbortSignal.timeout(Math.max(1, this.leaseSeconds - LEASE_MARGIN_SECONDS) * 1000);
    const signal = options.signal ? AbortSignal.any([options.signal, lease]) : lease;
    return this.runner.run(brokerageId, job, { ...options, signal, singletonHeld: true });
  }
}
