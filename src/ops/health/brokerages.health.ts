import { Injectable, Optional } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { ConfigService } from '../../config/config.service';
import { formatProblem } from '../../config/config-error';
import { RunRepository } from '../../ledger';
import { JobBackoff } from '../../scheduler/job-backoff';
import { jobKey } from '../../scheduler/job-key';
import { isJobName } from '../../scheduler/job.types';

// Down while the config on disk is invalid (the last good one keeps running). Reports, per brokerage
// and job, the last successful run and the status of the latest one.
@Injectable()
export class BrokeragesHealthIndicator {
  constructor(
    private readonly config: ConfigService,
    private readonly runs: RunRepository,
    private readonly indicators: HealthIndicatorService,
    // Present in the daemon (SchedulerModule); tells which jobs are backing off after failures.
    @Optional() private readonly backoff?: JobBackoff,
  ) {}

  async check(): Promise<HealthIndicatorResult> {
    const session = this.indicators.check('brokerages');
    const brokerages: Record<
      string,
      Record<
        string,
        {
          lastStatus: string;
          lastStartedAt: string;
          lastSuccessAt: string | null;
          consecutiveFailures: number;
        }
      >
    > = {};
    try {
      for (const brokerage of this.config.brokerages()) {
        const jobs: (typeof brokerages)[string] = {};
        for (const run of await this.runs.lastRuns(brokerage.id)) {
          const success =
            run.status === 'succeeded' ? run : await this.runs.lastSuccess(brokerage.id, run.job);
          jobs[run.job] = {
            lastStatus: run.status,
            lastStartedAt: run.startedAt.toISOString(),
            lastSuccessAt: success?.finishedAt?.toISOString() ?? null,
            // A run of a job since retired has no backoff to tell.
            consecutiveFailures:
              (isJobName(run.job) &&
                this.backoff?.state(jobKey(brokerage.id, run.job)).consecutiveFailures) ||
              0,
          };
        }
        brokerages[brokerage.id] = jobs;
      }
    } catch {
      // The ledger indicator reports an unreachable ledger; here we only lose the per-job detail.
    }
    if (this.config.globalProblems().length > 0) {
      return session.down({
        message: 'the brokerage config is invalid',
        problems: this.config.currentProblems().map(formatProblem),
        brokerages,
      });
    }
    // A brokerage whose file failed to load is unready on its own: the process stays ready, so an
    // orchestrator keeps routing the other brokerages' webhooks (GET /health/ready/<id> per brokerage).
    const unready = Object.fromEntries(
      [...this.config.unreadyBrokerages()].map(([id, problems]) => [id, problems.map(formatProblem)]),
    );
    return session.up({ count: Object.keys(brokerages).length, brokerages, unready });
  }

  // One brokerage's readiness: loaded and without problems from the last load.
  brokerageReadiness(brokerageId: string): { status: 'ready' | 'unready' | 'unknown'; problems: string[] } {
    const problems = this.config.unreadyBrokerages().get(brokerageId);
    if (problems) return { status: 'unready', problems: problems.map(formatProblem) };
    return this.config.get(brokerageId)
      ? { status: 'ready', problems: [] }
      : { status: 'unknown', problems: [] };
  }
}
