import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { ConfigService } from '../config/config.service';
import { formatProblem } from '../config/config-error';
import { DAEMON_SETTINGS, type AlertSettings, type DaemonSettings } from '../config/daemon-settings';
import {
  CREDENTIAL_REMOTES,
  InboxRepository,
  OutboxRepository,
  RunRepository,
  type FailureStreak,
} from '../ledger';
import { brokeragePause, isPaused, JobPauseService, type PauseView } from '../scheduler/job-pause.service';
import { JOB_NAMES } from '../scheduler/job.types';
import { problemKey, type AlertKind, type Observation, type Problem } from './alert-problems';

// Looks at the config and the ledger and says what needs a person now (alert-problems.ts decides
// what that does to the alerts). Everything here is read from the ledger, so every worker sharing a
// PostgreSQL ledger sees the same problems; only "failed to load" is each process's own config.
@Injectable()
export class ProblemFinder {
  constructor(
    private readonly config: ConfigService,
    private readonly pauses: JobPauseService,
    private readonly runs: RunRepository,
    private readonly outbox: OutboxRepository,
    private readonly inbox: InboxRepository,
    private readonly clock: Clock,
    @Inject(DAEMON_SETTINGS) private readonly settings: Pick<DaemonSettings, 'alerts'>,
  ) {}

  async observe(): Promise<Observation> {
    const problems: Problem[] = [];
    const checked = new Set<string>();
    const look = (
      kind: AlertKind,
      brokerageId: string,
      found: Omit<Problem, 'key' | 'kind' | 'brokerageId'> | null,
      key = problemKey(kind, brokerageId),
    ) => {
      checked.add(key);
      if (found) problems.push({ key, kind, brokerageId, ...found });
    };
    const unready = this.config.unreadyBrokerages();
    for (const [id, loadProblems] of unready)
      look('brokerage_unloaded', id, {
        summary: `brokerage ${id} failed to load and is ${this.config.get(id) ? 'running on its last good config' : 'not synced'}: ${loadProblems.map(formatProblem).join('; ').slice(0, 400)}`,
        more: `npm run cli -- validate-config; then reload-config (cli reload-config or SIGHUP)`,
      });
    const pauses = await this.pauses.list();
    // Enough runs back to tell a streak of ALERT_JOB_FAILURES, and a shorter one that began long ago.
    const pairs = this.config
      .brokerages()
      .flatMap((b) => JOB_NAMES.map((job) => ({ brokerageId: b.id, job })));
    const streaks = await this.runs.failureStreaks(pairs, Math.max(this.settings.alerts.jobFailures, 2) + 50);
    const now = this.clock.nowMs();
    const a = this.settings.alerts;
    for (const brokerage of this.config.brokerages()) {
      const id = brokerage.id;
      if (!unready.has(id)) look('brokerage_unloaded', id, null);
      for (const remote of CREDENTIAL_REMOTES) {
        const pause = pauses.find((p) => p.brokerageId === id && p.credential === remote);
        look(
          'credential_refused',
          id,
          pause
            ? {
                summary: `brokerage ${id}: ${pause.reason}. All its jobs are paused until then.`,
                more: `npm run cli -- status --brokerage ${id}`,
              }
            : null,
          problemKey('credential_refused', id, remote),
        );
      }
      const enabled = brokerage.config.enabled !== false;
      look('jobs_failing', id, enabled ? this.failing(id, streaks, pauses, now) : null);
      look('work_stale', id, await this.stale(id, now, a));
      look('unknown_outcomes', id, await this.unknown(id, now, a));
      look('dead_work', id, await this.dead(id));
    }
    const brokerages = new Set([...this.config.brokerages().map((b) => b.id), ...unready.keys()]);
    return { problems, checked, brokerages };
  }

  private failing(
    id: string,
    streaks: FailureStreak[],
    pauses: PauseView[],
    now: number,
  ): Omit<Problem, 'key' | 'kind' | 'brokerageId'> | null {
    // A paused brokerage or job is not failing: it is not running (a refused credential has its own alert).
    if (brokeragePause(pauses, id)) return null;
    const { jobFailures, jobFailingMs } = this.settings.alerts;
    const failing = streaks.filter(
      (s) =>
        s.brokerageId === id &&
        !isPaused(pauses, id, s.job) &&
        (s.failures >= jobFailures || (s.failures >= 2 && now - s.since.getTime() >= jobFailingMs)),
    );
    if (failing.length === 0) return null;
    const jobs = failing
      .map(
        (s) =>
          `${s.job} failed ${s.failures} run(s) in a row since ${stamp(s.since)}${s.lastError ? ` (last: ${s.lastError.slice(0, 160)})` : ''}`,
      )
      .join('; ');
    return {
      summary: `brokerage ${id}: ${jobs}`,
      more: `npm run cli -- runs --brokerage ${id} --failed`,
    };
  }

  private async stale(
    id: string,
    now: number,
    a: AlertSettings,
  ): Promise<Omit<Problem, 'key' | 'kind' | 'brokerageId'> | null> {
    const command = await this.outbox.oldest(id, ['pending', 'failed', 'sending'], {
      exceptAwaitingEvidence: true,
    });
    const event = await this.inbox.oldest(id, ['pending', 'failed', 'processing']);
    const parts: string[] = [];
    if (command && now - command.createdAt.getTime() >= a.workAgeMs)
      parts.push(
        `an outbox command (${command.operation} for ${command.recordRef}, #${command.id}) has waited since ${stamp(command.createdAt)}`,
      );
    if (event && now - event.receivedAt.getTime() >= a.workAgeMs)
      parts.push(`an inbox event (#${event.id}) has waited since ${stamp(event.receivedAt)}`);
    if (parts.length === 0) return null;
    return {
      summary: `brokerage ${id}: ${parts.join('; ')}; agents' actions or the service's news are not getting through`,
      more: `npm run cli -- status --brokerage ${id}`,
    };
  }

  private async unknown(
    id: string,
    now: number,
    a: AlertSettings,
  ): Promise<Omit<Problem, 'key' | 'kind' | 'brokerageId'> | null> {
    const command = await this.outbox.oldest(id, ['unknown']);
    if (!command || now - (command.sentAt ?? command.createdAt).getTime() < a.unknownAgeMs) return null;
    const count = (await this.outbox.depth(id)).unknown;
    return {
      summary: `brokerage ${id}: ${count} command(s) sent with no known outcome, the oldest (${command.operation} for ${command.recordRef}, #${command.id}) since ${stamp(command.sentAt ?? command.createdAt)}; the daemon could not tell whether the service applied them`,
      more: `npm run cli -- errors --brokerage ${id}; once checked in the service, npm run cli -- confirm-received --id <n> (it is there) or npm run cli -- replay --commands --unknown --confirm-absent --id <n> (it never arrived)`,
    };
  }

  private async dead(id: string): Promise<Omit<Problem, 'key' | 'kind' | 'brokerageId'> | null> {
    const commands = (await this.outbox.depth(id)).dead;
    const events = (await this.inbox.depth(id)).dead;
    if (commands + events === 0) return null;
    const what = [
      commands > 0 ? `${commands} command(s)` : '',
      events > 0 ? `${events} webhook event(s)` : '',
    ]
      .filter(Boolean)
      .join(' and ');
    return {
      summary: `brokerage ${id}: ${what} dead-lettered: they will not be retried until replayed`,
      more: `status page, Commands and Events; after fixing the cause: npm run cli -- replay --commands (or --events) --brokerage ${id}`,
    };
  }
}

function stamp(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
