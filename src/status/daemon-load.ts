import type { Alert } from '../ledger';
import type { BrokerageView } from './status-snapshot.service';

// How recent a run of the daemon must be to say it runs a brokerage. Its drains run every few
// seconds by default (inbox 5 s, outbox 10 s), so a brokerage it runs has runs well inside this.
export const DAEMON_RUN_WINDOW_MINUTES = 15;

// A brokerage whose file does not load in this process (the CLI's shell) only for what this shell
// lacks (`missingHere`), and what the ledger shows of the daemon running it: its newest run of any
// job, and whether the daemon itself reports the brokerage unloaded (its brokerage_unloaded alert).
export interface DaemonLoad {
  missingHere: string[];
  daemonRunsIt: boolean;
  daemonLastRunAt: string | null;
  windowMinutes: number;
  // Why the ledger does not show the daemon running it; absent when it does.
  reason?: string;
}

// `stopped`: whether the process that made a run (its `<host>/<pid>` owner) is known to have ended
// since; a daemon that ran the brokerage a minute ago and has stopped runs it no longer.
export function daemonLoadOf(
  view: BrokerageView,
  alerts: Alert[],
  now: Date,
  stopped: (owner: string) => boolean = () => false,
): DaemonLoad | null {
  if (view.missingHere.length === 0) return null;
  const newest = view.jobs
    .map((j) => j.lastRun)
    .filter((run) => run !== undefined)
    .map((run) => ({ run, at: run.finishedAt ?? run.startedAt }))
    .sort((a, b) => b.at.getTime() - a.at.getTime())[0];
  const lastRunAt = newest?.at ?? null;
  const recent =
    lastRunAt !== null && now.getTime() - lastRunAt.getTime() <= DAEMON_RUN_WINDOW_MINUTES * 60_000;
  const unloaded = alerts.find((a) => a.kind === 'brokerage_unloaded' && a.brokerageId === view.id);
  const base = {
    missingHere: view.missingHere,
    daemonLastRunAt: lastRunAt?.toISOString() ?? null,
    windowMinutes: DAEMON_RUN_WINDOW_MINUTES,
  };
  if (unloaded) return { ...base, daemonRunsIt: false, reason: 'the daemon failed to load it too' };
  if (recent && newest?.run.owner && stopped(newest.run.owner))
    return {
      ...base,
      daemonRunsIt: false,
      reason: `the daemon that ran it (${newest.run.owner}) has stopped`,
    };
  if (!recent)
    return {
      ...base,
      daemonRunsIt: false,
      reason:
        `the daemon has not run it in the last ${DAEMON_RUN_WINDOW_MINUTES} min either` +
        (view.paused ? ' (the brokerage is paused)' : ''),
    };
  return { ...base, daemonRunsIt: true };
}

// "12 s ago", "4 min ago".
export function ago(at: string, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - new Date(at).getTime()) / 1000));
  return seconds < 120 ? `${seconds} s ago` : `${Math.round(seconds / 60)} min ago`;
}
