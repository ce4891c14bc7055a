import type { CredentialRemote } from '../ledger';

// What needs a person, one kind per cause (docs/operations.md, "Alerts").
export const ALERT_KINDS = [
  'credential_refused',
  'brokerage_unloaded',
  'jobs_failing',
  'work_stale',
  'dead_work',
  'unknown_outcomes',
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

// A problem as seen now: the same key each time it is seen, so it opens one alert.
export interface Problem {
  key: string;
  kind: AlertKind;
  brokerageId: string;
  // In an operator's words: what is wrong, since when, what to do. Record ids at most.
  summary: string;
  // The command or page that shows more.
  more: string;
}

export function problemKey(kind: AlertKind, brokerageId: string, subject?: CredentialRemote): string {
  return subject ? `${kind}:${brokerageId}:${subject}` : `${kind}:${brokerageId}`;
}

// An alert as the ledger holds it (the fields the decision reads).
export interface AlertRow {
  key: string;
  kind: string;
  brokerageId: string;
  state: 'firing' | 'resolved';
  summary: string;
  notifiedAt: Date;
  renotified: number;
  // The times it opened: a resolve or reminder is of the episode seen, never of a later one another
  // worker opened.
  episode: number;
}

// One look at the world: the problems present, and which keys were looked at at all (a problem
// that could not be checked this time, such as a credential nobody has tried yet, neither opens nor
// resolves its alert).
export interface Observation {
  problems: Problem[];
  checked: ReadonlySet<string>;
  // Brokerages the daemon knows (configured, or failing to load): an alert of any other is over.
  brokerages: ReadonlySet<string>;
}

export type AlertAction =
  | { action: 'open'; problem: Problem }
  | { action: 'renotify'; problem: Problem; seen: number; episode: number }
  | { action: 'resolve'; key: string; episode: number }
  // Still firing, said differently (new totals): the row is updated, nobody is notified.
  | { action: 'restate'; problem: Problem };

// What to do with the alerts for what was observed: open each new problem once, remind of one still
// present every `renotifyMs` (null: never), resolve each alert whose problem was checked and is
// gone, or whose brokerage is no longer known. Pure: the monitor applies the actions with
// conditional updates, so two workers deciding the same thing change the ledger once.
export function alertActions(
  alerts: readonly AlertRow[],
  observed: Observation,
  now: Date,
  renotifyMs: number | null,
): AlertAction[] {
  const byKey = new Map(alerts.map((a) => [a.key, a]));
  const present = new Map(observed.problems.map((p) => [p.key, p]));
  const actions: AlertAction[] = [];
  for (const problem of present.values()) {
    const alert = byKey.get(problem.key);
    if (!alert || alert.state === 'resolved') actions.push({ action: 'open', problem });
    else if (renotifyMs !== null && now.getTime() - alert.notifiedAt.getTime() >= renotifyMs)
      actions.push({ action: 'renotify', problem, seen: alert.renotified, episode: alert.episode });
    else if (alert.summary !== problem.summary) actions.push({ action: 'restate', problem });
  }
  for (const alert of alerts) {
    if (alert.state !== 'firing' || present.has(alert.key)) continue;
    const gone = observed.checked.has(alert.key) || !observed.brokerages.has(alert.brokerageId);
    if (gone) actions.push({ action: 'resolve', key: alert.key, episode: alert.episode });
  }
  return actions;
}
