import type { JobRunner, RunOutcome } from '../../src/scheduler/job-runner.service';
import type { JobName } from '../../src/scheduler/job.types';

// A test's run of a job, as cron's next tick would have it: after any run the daemon started by
// itself (at start, webhook registration asks for an early outbox drain), never skipped for
// overlapping one.
export async function runWhenIdle(
  runner: JobRunner,
  brokerageId: string,
  job: JobName,
  options?: Parameters<JobRunner['run']>[2],
): Promise<RunOutcome> {
  for (;;) {
    await runner.whenIdle(brokerageId, job);
    const outcome = await runner.run(brokerageId, job, options);
    if (outcome.status !== 'skipped' || !runner.isRunning(brokerageId, job)) return outcome;
  }
}
