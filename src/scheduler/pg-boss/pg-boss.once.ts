import { Inject, Injectable } from '@nestjs/common';
import { DAEMON_SETTINGS, type DaemonSettings } from '../../config/daemon-settings';
import { Ledger } from '../../ledger';
import { JobRunner, type RunOptions, type RunOutcome } from '../job-runner.service';
import { jobKey } from '../job-key';
import { emptyCounts, type JobName } from '../job.types';
import { createPgBoss } from './pg-boss.engine';
import { syncQueueOptions, type SyncJobData } from './pg-boss.queues';
import { SingletonRun } from './singleton-run';
import { WorkerHeartbeat } from './worker-heartbeat';

// `sync --once` on a PostgreSQL ledger: the run takes the (brokerage, job) pg-boss singleton like a
// worker would, so it never runs beside a worker's run of the same pair, and a worker's tick waits
// for it. While a worker holds the pair, it is refused, naming who to wait for.
@Injectable()
export class PgBossOnce {
  constructor(
    private readonly runner: JobRunner,
    private readonly ledger: Ledger,
    @Inject(DAEMON_SETTINGS) private readonly settings: DaemonSettings,
  ) {}

  // Only a shared ledger has workers to keep out of the way.
  applies(): boolean {
    return Boolean(this.settings.ledgerUrl);
  }

  async run(brokerageId: string, job: JobName, options: RunOptions = {}): Promise<RunOutcome> {
    // No maintenance and no cron from a one-off command: the workers do both.
    const boss = await createPgBoss(this.settings, 'one-off');
    await boss.start();
    try {
      const name = jobKey(brokerageId, job);
      if (!(await boss.getQueue(name)))
        await boss.createQueue(name, syncQueueOptions(name, this.settings.jobLeaseSeconds));
      const data: SyncJobData = { brokerageId, job };
      // Queue a run (dropped if one is queued already) and take it: pg-boss hands it over only if
      // no run of the pair is active anywhere.
      await boss.send(name, data);
      const [held] = await boss.fetch<SyncJobData>(name, { batchSize: 1 });
      if (!held) {
        const reason =
          `a worker is running ${job} for ${brokerageId} now (pg-boss holds it); ` +
          'a run is queued for the workers, or try again when it finishes';
        return { brokerageId, job, status: 'skipped', runId: null, counts: emptyCounts(), reason };
      }
      // Beats while it holds the job, as a worker does: the workers take a silent holder for dead.
      const heartbeat = new WorkerHeartbeat(
        this.ledger.heartbeats,
        this.ledger.owners.self,
        this.settings.workerHeartbeatSeconds,
      );
      await heartbeat.start();
      try {
        return await new SingletonRun(this.runner, this.settings.jobLeaseSeconds).run(
          brokerageId,
          job,
          options,
        );
      } finally {
        await boss.complete(name, held.id);
        await heartbeat.stop();
      }
    } finally {
      await boss.stop({ graceful: false, wait: true, timeout: 5000 });
    }
  }
}
