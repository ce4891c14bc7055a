import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../config/config.service';
import {
  credentialOfPause,
  credentialPauseJob,
  PauseRepository,
  WHOLE_BROKERAGE,
  type CredentialRemote,
  type Pause,
} from '../ledger';
import { isJobName, JOB_NAMES, type JobName } from './job.types';

export interface PauseView {
  brokerageId: string;
  // Undefined when the whole brokerage is paused.
  job?: JobName;
  // Set when the daemon paused the whole brokerage because this remote refuses its credentials; it
  // lifts the pause itself once they work again (the operator's resume leaves it).
  credential?: CredentialRemote;
  reason: string;
  pausedAt: Date;
}

// What the operator asked for cannot be done as asked (an unknown target, a reason too long).
export class UnknownTargetError extends Error {}

export function noSuchJob(job: string): UnknownTargetError {
  return new UnknownTargetError(`no job "${job}" (jobs: ${JOB_NAMES.join(', ')})`);
}

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

  async pause(brokerageId: string, job?: string, given = ''): Promise<PauseView> {
    // A reason is a line on the page, in status and in the log, not a document: control characters
    // (a newline that would forge a log line, a terminal escape) become spaces.
    const reason = oneLine(given);
    if (reason.length > MAX_PAUSE_REASON)
      throw new UnknownTargetError(
        `the pause reason is ${reason.length} characters; at most ${MAX_PAUSE_REASON} are kept: say it shorter`,
      );
    const target = this.check(brokerageId, job);
    const row = await this.pauses.pause(brokerageId, target, reason);
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

  // The daemon's own pause of a brokerage whose credentials `remote` refuses (CredentialWatch).
  async pauseForCredential(brokerageId: string, remote: CredentialRemote, reason: string): Promise<boolean> {
    const existing = await this.pauses.pauseOf(brokerageId, credentialPauseJob(remote));
    const already = existing?.job === credentialPauseJob(remote);
    await this.pauses.pause(brokerageId, credentialPauseJob(remote), reason.slice(0, MAX_PAUSE_REASON));
    if (!already) this.logger.warn(`paused brokerage ${brokerageId} (all jobs): ${reason}`);
    return !already;
  }

  // True when there was such a pause.
  async clearCredential(brokerageId: string, remote: CredentialRemote): Promise<boolean> {
    const cleared = await this.pauses.resume(brokerageId, credentialPauseJob(remote));
    if (cleared)
      this.logger.log(
        `resumed brokerage ${brokerageId}: ${remote === 'crm' ? 'the CRM' : 'the Cash Offer service'} accepts its credentials again`,
      );
    return cleared;
  }

  async list(brokerageId?: string): Promise<PauseView[]> {
    return (await this.pauses.list(brokerageId)).map(view);
  }

  private check(brokerageId: string, job: string | undefined): JobName | undefined {
    // A pause is the ledger's, not the brokerage's settings': one whose file is there but does not
    // load here (the shell lacks the secrets the daemon has) can be paused and resumed all the same.
    if (!this.config.isKnown(brokerageId))
      throw new UnknownTargetError(this.config.whyNotLoaded(brokerageId));
    if (job === undefined || job === '') return undefined;
    if (!isJobName(job)) throw noSuchJob(job);
    return job;
  }
}

// Whether this job is stopped by one of these pauses (its own or its brokerage's: the operator's
// first, then a refused credential's).
export function isPaused(pauses: PauseView[], brokerageId: string, job: string): PauseView | undefined {
  return (
    brokeragePause(pauses, brokerageId) ?? pauses.find((p) => p.brokerageId === brokerageId && p.job === job)
  );
}

// The pause of a whole brokerage: the operator's, else the daemon's for a refused credential.
export function brokeragePause(pauses: PauseView[], brokerageId: string): PauseView | undefined {
  const whole = pauses.filter((p) => p.brokerageId === brokerageId && p.job === undefined);
  return whole.find((p) => !p.credential) ?? whole[0];
}

function view(row: Pause): PauseView {
  const credential = credentialOfPause(row.job);
  return {
    brokerageId: row.brokerageId,
    job: row.job === WHOLE_BROKERAGE || credential ? undefined : (row.job as JobName),
    ...(credential ? { credential } : {}),
    reason: row.reason,
    pausedAt: row.pausedAt,
  };
}

function describe(brokerageId: string, job: JobName | undefined): string {
  return job ? `${job} of brokerage ${brokerageId}` : `brokerage ${brokerageId} (all jobs)`;
}

function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- the control characters are what is replaced
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
}
