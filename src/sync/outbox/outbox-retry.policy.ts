import { backoffDelayMs, type BackoffCurve } from '../../common/backoff';

// When a failed command is due again: exponential from 5 s, capped at 15 min, never sooner than the
// service's Retry-After; jitter spreads commands that failed together. Dead-lettered after the last.
export const OUTBOX_MAX_ATTEMPTS = 10;
const OUTBOX_BACKOFF: BackoffCurve = { baseMs: 5_000, capMs: 15 * 60_000, jitter: 'equal' };

export function outboxRetryDelayMs(attempts: number, retryAfterMs?: number, random = Math.random): number {
  return backoffDelayMs(OUTBOX_BACKOFF, attempts, { notBeforeMs: retryAfterMs, random });
}

// When an unknown outcome is looked for again: soon after the attempt (the service may list the
// record within seconds), then less often as it ages (half its age), never more often than every
// 30 s nor less often than every 10 min. The first check waits 30 s too.
const RECONCILE_MIN_MS = 30_000;
const RECONCILE_MAX_MS = 10 * 60_000;

export function reconcileDelayMs(sinceSentMs: number): number {
  return Math.min(RECONCILE_MAX_MS, Math.max(RECONCILE_MIN_MS, sinceSentMs / 2));
}

// `deal:123` -> { kind: 'deal', id: '123' }: the record a command is about, for record errors.
export function splitRecordRef(recordRef: string): { kind: string; id: string } {
  const colon = recordRef.indexOf(':');
  return colon < 0
    ? { kind: 'record', id: recordRef }
    : { kind: recordRef.slice(0, colon), id: recordRef.slice(colon + 1) };
}
