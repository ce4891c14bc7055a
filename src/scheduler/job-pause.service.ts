import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../config/config.service';
import { PauseRepository, WHOLE_BROKERAGE, type Pause } from '../ledger';
import { isJobName, JOB_NAMES, type JobName } from './job.types';

export interface PauseView {
  brokerageId: string;
  // Undefined when the whole brokerage is paused.
  job?: JobName;
  reason: string;
  pausedAt: Date;
}

// What the operator asked for cannot be done as asked (an unknown target, a reason too long).
export class UnknownTargetError extends Error {}

export const MAX_PAUSE_REASON = 500;

// Pause and resume per brokerage or per job: what the CLI's pause/resume and the status page's
// forms call. The ledger keeps the pause; JobRunner.run reads it before every run.
@Injectable()
export class JobPauseService {
  private readonly logger = new Logger('Pause');

  constructor(
    private readonly pauses: PauseRepository,
    private readonly config: ConfigService,
  ) {}

  async pause(brokerageId: string, job?: string, reason = ''): Promise<PauseView> {
    // A reason is a line on the page and in status, not a document.
    if (reason.trim().length > MAX_PAUSE_REASON)
      throw new UnknownTargetError(
        `the pause reason is ${reason.trim().length} characters; at most ${MAX_PAUSE_REASON} are kept: say it shorter`,
      );
    const target = this.check(brokerageId, job);
    const row = await this.pauses.pause(brokerageId, target, reason.trim());
    this.logger.log(`paused ${describe(brokerageId, target)}${row.reason ? `: ${row.reason}` : ''}`);
    return view(row);
  }

  // True when something was paused (resuming what was not paused is not an error).
  async resume(brokerageId: string, job?: string): Promise<boolean> {
    const target = this.check(brokerageId, job);
    const resumed = await this.pauses.resume(brokerageId, target);
    if (resumed) this.logger.log(`resumed ${describe(brokerageId, target)}`);
    return resumed;
  }

  async list(brokerageId?: string): Promise<PauseView[]> {
    return (await this.pauses.list(brokerageId)).map(view);
  }

  private check(brokerageId: string, job: string | undefined): JobName | undefined {
    if (!this.config.get(brokerageId)) {
      const known = this.config.brokerages().map((b) => b.id);
      throw new UnknownTargetError(
        `no brokerage "${brokerageId}" is configured (known: ${known.join(', ') || 'none'})`,
      );
    }
    if (job === undefined || job === '') return undefined;
    if (!isJobName(job)) throw new UnknownTargetError(`no job "${job}" (jobs: ${JOB_NAMES.join(', ')})`);
    return job;
  }
}

// Whether this job is stopped by one of these pauses (its own or its brokerage's).
export function isPaused(pauses: PauseView[], brokerageId: string, job: string): PauseView | undefined {
  return (
    pauses.find((p) => p.brokerageId === brokerageId && p.job === undefined) ??
    pauses.find((p) => p.brokerageId === brokerageId && p.job === job)
  );
}

function view(row: Pause): PauseView {
  return {
    brokerageId: row.brokerageId,
    job: row.job === WHOLE_BROKERAGE ? undefined : (row.job as JobName),
    reason: row.reason,
    pausedAt: row.pausedAt,
  };
}

function describe(brokerageId: string, job: JobName | undefined): string {
  return job ? `${job} of brokerage ${brokerageId}` : `brokerage ${brokerageId} (all jobs)`;
}
