import { leadLabel, type ClockSettings } from './offer-clock.settings';

// One offer as the clocks see it after a reconcile pass.
export interface ClockedOffer {
  offerId: number;
  expiresMs: number | null;
  // undecided: the service lists it open and the agent has not moved its record out of Incoming (a
  // move to accept, reject or counter is the agent's answer, even before it is sent). expired: the
  // service says so (or no longer lists it past its expiry), or its record already shows Expired.
  state: 'undecided' | 'answered' | 'expired';
}

// A task the daemon made for this offer (its outbox command exists), and whether it is still open
// as far as the daemon knows (not completed by the daemon; an agent's completion is never undone).
export interface KnownTask {
  key: string;
  open: boolean;
}

export type ClockAction =
  | { kind: 'create_task'; key: string; for: 'agent' | 'broker'; lead: string; dueMs: number }
  | { kind: 'complete_task'; key: string; why: 'decided' | 'expired' | 'superseded' }
  | { kind: 'show_expired' };

// The task keys of one offer: "offer:7012:lead:24h", "offer:7012:escalation".
export function leadTaskKey(offerId: number, leadMs: number): string {
  return `offer:${offerId}:lead:${leadLabel(leadMs)}`;
}

export function escalationTaskKey(offerId: number): string {
  return `offer:${offerId}:escalation`;
}

// What the clocks do for one offer now: the agent's task for the nearest lead time that has begun
// (an offer first seen 90 minutes before its expiry gets the 2 h task, not the 24 h one too; the
// 24 h task, if there was one, is closed as superseded), the broker's at the escalation time, and,
// once the offer is answered or past its expiry, every open task closed. An undecided offer past
// its expiry is shown as expired. A key already known is never made again: tasks are made once.
// Clocks switched off make no tasks; an offer that ran out is still shown Expired (the record's truth).
export function planClock(
  offer: ClockedOffer,
  known: readonly KnownTask[],
  nowMs: number,
  settings: ClockSettings,
): ClockAction[] {
  const byKey = new Map(known.map((t) => [t.key, t]));
  const closeAll = (why: 'decided' | 'expired'): ClockAction[] =>
    known.filter((t) => t.open).map((t) => ({ kind: 'complete_task', key: t.key, why }));
  if (offer.state === 'answered') return closeAll('decided');
  if (offer.state === 'expired') return closeAll('expired');
  if (offer.expiresMs === null) return [];
  if (nowMs >= offer.expiresMs) return [...closeAll('expired'), { kind: 'show_expired' }];
  if (!settings.enabled) return [];

  const actions = leadTaskActions(offer.expiresMs, known, nowMs, settings.leadsMs, (lead) =>
    leadTaskKey(offer.offerId, lead),
  );
  if (settings.escalateMs !== null && nowMs >= offer.expiresMs - settings.escalateMs) {
    const key = escalationTaskKey(offer.offerId);
    if (!byKey.has(key))
      actions.push({
        kind: 'create_task',
        key,
        for: 'broker',
        lead: leadLabel(settings.escalateMs),
        dueMs: offer.expiresMs - settings.escalateMs,
      });
  }
  return actions;
}

// The agent's task for the nearest lead time that has begun, unless its key is known, and the open
// tasks of longer lead times closed as superseded. Shared by the offer and the counter clocks.
export function leadTaskActions(
  expiresMs: number,
  known: readonly KnownTask[],
  nowMs: number,
  leadsMs: readonly number[],
  keyOf: (leadMs: number) => string,
): ClockAction[] {
  const byKey = new Map(known.map((t) => [t.key, t]));
  const begun = leadsMs.filter((lead) => nowMs >= expiresMs - lead);
  if (begun.length === 0) return [];
  const nearest = begun[begun.length - 1];
  const actions: ClockAction[] = [];
  const key = keyOf(nearest);
  if (!byKey.has(key))
    actions.push({
      kind: 'create_task',
      key,
      for: 'agent',
      lead: leadLabel(nearest),
      dueMs: expiresMs - nearest,
    });
  for (const lead of leadsMs.filter((l) => l > nearest)) {
    const earlier = byKey.get(keyOf(lead));
    if (earlier?.open) actions.push({ kind: 'complete_task', key: earlier.key, why: 'superseded' });
  }
  return actions;
}
