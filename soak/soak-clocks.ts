import type { SoakRandom } from './soak-random';

// The offer clocks under kills (docs/operations.md "Crash soak"): the brokerage's clocks in
// minutes, the near expiries the buyers give some offers so that every clock moment (a lead time,
// the broker's escalation, the expiry) comes within a run, and when the settle must wait for one.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

// The agent's lead times, longest first, with the label the task key carries (docs/crm-mapping.md,
// "Tasks in the outbox": `offer:<id>:lead:<label>`, minutes below an hour: "12m"), and the
// broker's escalation. The schema's shortest lead time is 0.1 h.
export const SOAK_LEADS = [
  { label: '12m', ms: 12 * MINUTE },
  { label: '6m', ms: 6 * MINUTE },
] as const;
export const SOAK_ESCALATE_MS = 9 * MINUTE;

// The brokerage file's `offerClocks` (the broker's user id is the CRM's).
export function soakClocksConfig(brokerOwnerId: string): Record<string, unknown> {
  return {
    leadHours: SOAK_LEADS.map((l) => l.ms / HOUR),
    escalateHours: SOAK_ESCALATE_MS / HOUR,
    brokerOwnerId,
  };
}

// A near expiry, from the moment the offer is made: each band puts one clock moment 10 to 40 s
// after the offer (the 12 min task; the escalation, the 12 min task made at first sight; the 6 min
// task superseding the 12 min one, the escalation at first sight), or, twice as often, the expiry
// itself 20 to 90 s after it (the 6 min task and the escalation at first sight, then Expired).
const BANDS: readonly [number, number][] = [
  [12 * MINUTE + 10_000, 12 * MINUTE + 40_000],
  [9 * MINUTE + 10_000, 9 * MINUTE + 40_000],
  [6 * MINUTE + 10_000, 6 * MINUTE + 40_000],
  [20_000, 90_000],
  [20_000, 90_000],
];
// Offers on a near clock: half the buyers' offers. The rest keep the sandbox's 7 days.
const NEAR_SHARE = 0.5;
// An expiry this close is a near clock (the agent treats such offers as soak-clocks.ts says).
export const NEAR_CLOCK_MS = 15 * MINUTE;

export function nearExpiry(random: SoakRandom, nowMs: number): string | undefined {
  if (!random.chance(NEAR_SHARE)) return undefined;
  const [from, to] = random.pick(BANDS);
  return new Date(nowMs + Math.round(random.between(from, to))).toISOString();
}

// How long the daemon is given to act on a clock moment, or to make and close the tasks of a
// complete pass, before the check judges it: a pass every 2 s, an outbox drain every second. What
// happened in the last TASK_GRACE_MS before the check is not judged (soak-task-checks.ts).
export const TASK_GRACE_MS = 20_000;
// By default the settle waits for the moments due up to this long after it began (every band's
// first moment comes within 90 s of the offer) and TASK_GRACE_MS after each. Not for later ones:
// offers made minutes earlier have moments all through a long run's settle (a 12 min task's offer
// escalates 3 min later), and waiting for every one would never end. A moment not waited for is not
// judged (it falls after the check's judging time), so a shorter wait checks fewer moments, never
// wrongly.
export const MOMENT_AHEAD_MS = 100_000;

// The clock moments of an offer: each lead time's start, the escalation's, the expiry.
export function clockMoments(expiresMs: number): number[] {
  return [...SOAK_LEADS.map((l) => expiresMs - l.ms), expiresMs - SOAK_ESCALATE_MS, expiresMs];
}

// Why the settle (begun at `settleStartMs`) must go on: an undecided offer with a clock moment just
// passed (its task may not be made yet) or about to come within `aheadMs` of the settle's start.
// Empty when none.
export function clocksBusy(
  offers: readonly { offer_id: number; offer_status: string; offer_expires?: string | null }[],
  nowMs: number,
  settleStartMs: number,
  aheadMs = MOMENT_AHEAD_MS,
): string {
  for (const offer of offers) {
    if (offer.offer_status !== 'active') continue;
    const expires = Date.parse(offer.offer_expires ?? '');
    if (!Number.isFinite(expires)) continue;
    const near = clockMoments(expires).find((m) => m > nowMs - TASK_GRACE_MS && m <= settleStartMs + aheadMs);
    if (near !== undefined)
      return `offer ${offer.offer_id}'s clock (a moment ${Math.round((near - nowMs) / 1000)} s from now)`;
  }
  return '';
}

// A CRM task as the soak reads it: the key the daemon stores in its text, as the docs describe it
// (`[cash-offer-sync: offer:7012:lead:12m]`, HubSpot: in the notes; Follow Up Boss: in the name).
export interface SoakTask {
  id: string;
  key: string | null;
  completed: boolean;
}

const MARKER = /\[cash-offer-sync: ([A-Za-z0-9:._/-]{1,100})\]/g;

// The last marker in a task's text (a task someone else made has none).
export function taskKeyIn(text: string | null | undefined): string | null {
  const keys = [...(text ?? '').matchAll(MARKER)].map((m) => m[1]);
  return keys.length > 0 ? keys[keys.length - 1] : null;
}
