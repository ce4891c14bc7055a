import { createHmac } from 'node:crypto';

export type AlertTransition = 'firing' | 'renotify' | 'resolved';

// The JSON body of a generic webhook alert, and what the Slack and email channels render. Record
// ids at most: the summary is written by the problem finder, never from a payload or a secret.
export interface AlertNotice {
  alert: string;
  kind: string;
  state: 'firing' | 'resolved';
  // A reminder of an alert still firing (ALERT_RENOTIFY_MINUTES).
  reminder: boolean;
  brokerage: string | null;
  summary: string;
  since: string;
  resolvedAt: string | null;
  lastedSeconds: number | null;
  more: string;
  // Counts the times this alert opened: (alert, episode, state, reminder) names one notification.
  episode: number;
  daemon: string;
}

export function alertNotice(
  alert: {
    key: string;
    kind: string;
    brokerageId: string;
    summary: string;
    more: string;
    openedAt: Date;
    resolvedAt: Date | null;
    episode: number;
  },
  transition: AlertTransition,
  daemon: string,
): AlertNotice {
  const resolved = transition === 'resolved' && alert.resolvedAt !== null;
  return {
    alert: alert.key,
    kind: alert.kind,
    state: transition === 'resolved' ? 'resolved' : 'firing',
    reminder: transition === 'renotify',
    brokerage: alert.brokerageId === '' ? null : alert.brokerageId,
    summary: alert.summary,
    since: alert.openedAt.toISOString(),
    resolvedAt: resolved ? alert.resolvedAt!.toISOString() : null,
    lastedSeconds: resolved
      ? Math.max(0, Math.round((alert.resolvedAt!.getTime() - alert.openedAt.getTime()) / 1000))
      : null,
    more: alert.more,
    episode: alert.episode,
    daemon,
  };
}

// One line a person reads first (Slack text, email subject).
export function noticeHeadline(notice: AlertNotice): string {
  const state = notice.state === 'resolved' ? 'RESOLVED' : notice.reminder ? 'STILL FIRING' : 'FIRING';
  return `[cash-offer-sync] ${state}: ${KIND_TITLES[notice.kind] ?? notice.kind}${notice.brokerage ? ` (brokerage ${notice.brokerage})` : ''}`;
}

export function noticeText(notice: AlertNotice): string {
  const lines = [noticeHeadline(notice), '', notice.summary, '', `Since: ${notice.since}`];
  if (notice.state === 'resolved')
    lines.push(`Resolved: ${notice.resolvedAt} (lasted ${formatLasted(notice.lastedSeconds ?? 0)})`);
  else lines.push(`More: ${notice.more}`);
  lines.push(`Daemon: ${notice.daemon}; alert ${notice.alert}, episode ${notice.episode}`);
  return lines.join('\n');
}

// `X-Cash-Offer-Sync-Signature` of a webhook body: sha256=<hex HMAC of the exact bytes sent>.
export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

const KIND_TITLES: Record<string, string> = {
  credential_refused: 'credentials refused',
  brokerage_unloaded: 'brokerage config failed to load',
  jobs_failing: 'jobs failing',
  work_stale: 'work not getting through',
  dead_work: 'dead-lettered work',
  unknown_outcomes: 'commands with unknown outcome',
};

function formatLasted(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
