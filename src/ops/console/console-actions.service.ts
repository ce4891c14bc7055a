import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../../config/config.service';
import { JobPauseService, noSuchJob, UnknownTargetError } from '../../scheduler/job-pause.service';
import { JobRunner } from '../../scheduler/job-runner.service';
import { isJobName } from '../../scheduler/job.types';
import { ReplayService } from '../actions/replay.service';
import type { Notice } from './notice.board';

export interface ActionForm {
  brokerage?: string;
  job?: string;
  reason?: string;
  kind?: string;
  id?: string;
}

// The page's actions, each the same service call the CLI makes, turned into a notice for the page.
@Injectable()
export class ConsoleActions {
  private readonly logger = new Logger('Console');

  constructor(
    private readonly pauses: JobPauseService,
    private readonly replay: ReplayService,
    private readonly runner: JobRunner,
    private readonly config: ConfigService,
  ) {}

  async pause(form: ActionForm): Promise<Notice> {
    return this.attempt(async () => {
      const pause = await this.pauses.pause(required(form.brokerage), form.job || undefined, form.reason);
      return `Paused ${target(pause.brokerageId, pause.job)}. Cron starts none of it until it is resumed; a run already going finishes.`;
    });
  }

  async resume(form: ActionForm): Promise<Notice> {
    return this.attempt(async () => {
      const brokerage = required(form.brokerage);
      const resumed = await this.pauses.resume(brokerage, form.job || undefined);
      return resumed
        ? `Resumed ${target(brokerage, form.job)}.`
        : `${target(brokerage, form.job)} was not paused.`;
    });
  }

  async replayRows(form: ActionForm): Promise<Notice> {
    return this.attempt(async () => {
      const brokerageId = required(form.brokerage);
      const ids = form.id ? [positiveId(form.id)] : undefined;
      if (form.kind === 'events') {
        const n = await this.replay.replayEvents({ brokerageId, ids });
        return `Replayed ${n} webhook event(s) of ${brokerageId}; the inbox drain picks them up on its next tick.`;
      }
      if (form.kind === 'commands') {
        const n = await this.replay.replayCommands({ brokerageId, ids });
        return `Replayed ${n} outbox command(s) of ${brokerageId}; the outbox drain sends them on its next tick.`;
      }
      throw new UnknownTargetError('replay needs kind=events or kind=commands');
    });
  }

  // Starts the run and answers at once: the page shows it as running until it ends.
  async runNow(form: ActionForm): Promise<Notice> {
    return this.attempt(async () => {
      const brokerage = required(form.brokerage);
      const job = form.job ?? '';
      // Checked before starting: the run is not awaited, so its refusal would reach only the log,
      // under a notice that said it started.
      if (!this.config.get(brokerage)) throw new UnknownTargetError(this.config.whyNotLoaded(brokerage));
      if (!isJobName(job)) throw noSuchJob(job);
      const paused = (await this.pauses.list(brokerage)).find((p) => p.job === undefined || p.job === job);
      if (paused)
        throw new UnknownTargetError(
          `${target(brokerage, job)} is paused; resume it first (or run it once anyway: cli sync --once --force)`,
        );
      if (this.runner.isRunning(brokerage, job)) return `${target(brokerage, job)} is already running.`;
      void this.runner
        .run(brokerage, job)
        .catch((error: unknown) =>
          this.logger.error(`run now of ${job} for ${brokerage} failed: ${String(error)}`),
        );
      return `Started ${target(brokerage, job)}.`;
    });
  }

  private async attempt(action: () => Promise<string>): Promise<Notice> {
    try {
      return { kind: 'ok', text: await action() };
    } catch (error) {
      if (error instanceof UnknownTargetError) return { kind: 'error', text: error.message };
      throw error;
    }
  }
}

function required(brokerage: string | undefined): string {
  if (!brokerage) throw new UnknownTargetError('the form names no brokerage');
  return brokerage;
}

function positiveId(value: string): number {
  const id = Number(value);
  if (!Number.isInteger(id) || id < 1) throw new UnknownTargetError(`"${value}" is not an id`);
  return id;
}

function target(brokerageId: string, job: string | undefined): string {
  return job ? `${job} of brokerage ${brokerageId}` : `brokerage ${brokerageId}`;
}
