import { leadTaskActions, type ClockAction, type KnownTask } from './offer-clock.plan';
import { leadLabel, type ClockSettings } from './offer-clock.settings';

// One counter this brokerage sent, as the counter clocks see it after a reconcile pass. A counter is
// known by the offer it counters (its own id may come later, or never: an answer with no body).
export interface ClockedCounter {
  offerId: number;
  // `counter_offer_expires`; null: the counter was sent without one, so there is nothing to remind of.
  expiresMs: number | null;
  // waiting: the buyer has not answered. answered: the buyer accepted or refused it, or another
  // offer's acceptance rejected it (the spec's cascade). gone: the service no longer lists the
  // countered offer, so nothing more can be learnt of its counter.
  state: 'waiting' | 'answered' | 'gone';
}

// "counter:7012:lead:24h": the countered offer's id, apart from the offer's own "offer:7012:..." keys
// (the offer clock closes those once the agent has countered; these stay open for the buyer's answer).
export function counterLeadTaskKey(offerId: number, leadMs: number): string {
  return `counter:${offerId}:lead:${leadLabel(leadMs)}`;
}

// What the counter clock does for one counter now: the agent's reminder at the nearest lead time
// before `counter_offer_expires` that has begun (the same lead times as offers, the same superseding),
// and every open reminder closed once the buyer answers, the counter runs out, or its offer is gone.
// No broker escalation: the buyer, not the agent, has to answer a counter, so there is no decision a
// broker could chase; the agent's reminder is for following up with the buyer's side. A counter past
// its expiry only has its tasks closed: the record keeps showing the counter as the service has it.
export function planCounterClock(
  counter: ClockedCounter,
  known: readonly KnownTask[],
  nowMs: number,
  settings: ClockSettings,
): ClockAction[] {
  const closeAll = (why: 'decided' | 'expired'): ClockAction[] =>
    known.filter((t) => t.open).map((t) => ({ kind: 'complete_task', key: t.key, why }));
  if (counter.state === 'answered') return closeAll('decided');
  if (counter.state === 'gone') return closeAll('expired');
  if (counter.expiresMs === null) return closeAll('expired');
  if (nowMs >= counter.expiresMs) return closeAll('expired');
  if (!settings.enabled) return [];
  return leadTaskActions(counter.expiresMs, known, nowMs, settings.leadsMs, (lead) =>
    counterLeadTaskKey(counter.offerId, lead),
  );
}

// The countered offer a counter task key belongs to: "counter:7012:lead:2h" -> 7012.
export function counterOfferIdOfTaskKey(key: string): number | undefined {
  const match = /^counter:(\d+):/.exec(key);
  return match ? Number(match[1]) : undefined;
}
