import { SOAK_ESCALATE_MS, SOAK_LEADS, TASK_GRACE_MS, type SoakTask } from './soak-clocks';
import type { Violation } from './soak-checks';
import type { CounterGivenUp, CounterRefusedAtMove, ReconcilePass, TaskCreateRow } from './soak-ledger';
import type { StoredOffer } from './soak-service';

// Issue 29's promise under kills, checked from outside once the daemon has settled: exactly one CRM
// task per (offer, lead time) whose time came while the offer was undecided, none left open once the
// offer is answered or ran out, and an offer that ran out undecided shown Expired. Read from the
// service and the CRM's tasks (the key each carries in its text), never from the daemon's ledger;
// the rule is docs/crm-mapping.md's ("Offer clocks"), not the daemon's planner. Three things are read
// from the ledger: whether a complete offers-reconcile pass ran in the window (when a task was owed);
// for an owed task the CRM lacks, whether its create was queued and skipped because the offer had
// run out before the drain sent it (when a missing task is excused); and when the daemon refused a
// counter it could not send in time, at the drain or at the move (when the agent's move stopped
// answering the offer).

// Until when an unsent counter stood as the offer's answer: until the daemon gave it up at the drain
// (the record put back where the offer is) or refused it at the move (the record left in Counter
// requested with Decision error, which the clocks read as unanswered), whichever came first after
// the move; Infinity while neither has. A ledger error first seen before this move was refused
// again after it, at the latest by its last sighting.
export function unsentCounterAnsweredUntil(
  move: { at: number; offerId: string; recordId: string },
  givenUp: readonly CounterGivenUp[],
  refusedAtMove: readonly CounterRefusedAtMove[],
): number {
  const gaveUp = givenUp
    .filter((g) => g.offerId === move.offerId && g.givenUpMs >= move.at)
    .map((g) => g.givenUpMs);
  const refused = refusedAtMove
    .filter((r) => r.recordId === move.recordId && r.lastMs >= move.at)
    .map((r) => (r.firstMs >= move.at ? r.firstMs : r.lastMs));
  return Math.min(Infinity, ...gaveUp, ...refused);
}

export interface TaskFacts {
  offers: StoredOffer[]; // this run's offers at the service
  tasks: SoakTask[]; // every task in the CRM
  // When the agent first moved each offer's record out of Incoming (offer id -> epoch ms).
  movedAt: ReadonlyMap<string, number>;
  // Spans in which the agent's move stood as the offer's answer though it never reached the
  // service (a counter whose own expiry passed first): from the move until the daemon refused it
  // (`unsentCounterAnsweredUntil`). The clocks rightly read the record as answered then (a move is
  // the agent's answer before it is sent: docs/crm-mapping.md), so a pass inside one owes nothing.
  answeredForAWhile?: ReadonlyMap<string, readonly { fromMs: number; toMs: number }[]>;
  // The stage key each offer's record shows (offers with exactly one record).
  stageOf: ReadonlyMap<string, string>;
  // When each offer's record first appeared in the CRM (offer id -> epoch ms): a clock's task hangs
  // on the record, so none is owed before the agent can see the offer (docs/crm-mapping.md).
  recordMadeAt: ReadonlyMap<string, number>;
  nowMs: number; // when the tasks were read
  // The complete offers-reconcile passes of the run (the ledger's succeeded runs): a task is owed
  // only for a window in which one ran, since the clocks act at the end of each pass and nowhere
  // else. Under kills a daemon may not finish a pass for many of its short lives.
  passes: ReconcilePass[];
  // The clocks' create_offer_task commands by task key (the outbox's).
  creates: ReadonlyMap<string, TaskCreateRow>;
  // The single daemon's lives, from live to killed (the last one open): the time a skipped create
  // had is the time the daemon was up in it, not the wall time, which on a loaded host is mostly
  // starts (seen in CI: 16 to 20 s a start, each life 2 s of work). Absent for workers, of which
  // one is nearly always live.
  lives?: readonly DaemonLife[];
}

export interface DaemonLife {
  fromMs: number;
  toMs: number;
}

// The last moment a CRM's creation time can stand for: Follow Up Boss writes whole seconds
// (`2026-11-30T21:49:46Z`, crm-apis.md B1), so a record stamped so was made at any moment of that
// second, and a pass that ran early in it may have run before the record existed.
export function latestMomentOf(stamp: string): number {
  const at = Date.parse(stamp);
  return /T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:?\d{2})$/.test(stamp) ? at + 999 : at;
}

// How long the daemon was live between `fromMs` and `toMs` (wall time without `lives`).
export function liveMsBetween(
  lives: readonly DaemonLife[] | undefined,
  fromMs: number,
  toMs: number,
): number {
  if (!lives) return Math.max(0, toMs - fromMs);
  return lives.reduce((sum, l) => sum + Math.max(0, Math.min(l.toMs, toMs) - Math.max(l.fromMs, fromMs)), 0);
}

export interface TaskFigures {
  tasks: number; // distinct task keys of this run's offers found in the CRM
  duplicate: number;
  missing: number;
  // Owed tasks the CRM lacks because the daemon skipped the create, the offer having run out before
  // the drain sent it, when the daemon had less than TASK_GRACE_MS (live, where its lives are known)
  // from the first moment it could queue it to the expiry: not a violation (the record shows
  // Expired; a reminder would be stale).
  skippedPastExpiry: number;
  open: number;
  expiredUndecided: number; // offers the service lists expired that the agent never answered
  shownExpired: number; // of those, records showing Expired
}

const MOVE_MARGIN_MS = 2000;
const KEY = /^offer:(\d+):(lead:[^:]+|escalation)$/;

export function checkTasks(facts: TaskFacts): { violations: Violation[]; figures: TaskFigures } {
  const violations: Violation[] = [];
  const byOffer = new Map<string, Map<string, SoakTask[]>>();
  for (const task of facts.tasks) {
    const match = KEY.exec(task.key ?? '');
    if (!match) continue;
    const keys = byOffer.get(match[1]) ?? new Map<string, SoakTask[]>();
    keys.set(task.key!, [...(keys.get(task.key!) ?? []), task]);
    byOffer.set(match[1], keys);
  }
  const figures: TaskFigures = {
    tasks: 0,
    duplicate: 0,
    missing: 0,
    skippedPastExpiry: 0,
    open: 0,
    expiredUndecided: 0,
    shownExpired: 0,
  };
  const add = (kind: Violation['kind'], offer: StoredOffer, detail: string): void => {
    violations.push({ kind, record: `offer ${offer.offer_id} (request ${offer.offer_request_id})`, detail });
  };
  for (const offer of facts.offers) {
    const id = String(offer.offer_id);
    const keys = byOffer.get(id) ?? new Map<string, SoakTask[]>();
    const expires = Date.parse(offer.offer_expires ?? '');
    const created = Date.parse(offer.created_at ?? '');
    const shownFrom = Math.max(created, facts.recordMadeAt.get(id) ?? created);
    const moved = facts.movedAt.get(id);
    const decided = offer.offer_decided_at ? Date.parse(offer.offer_decided_at) : undefined;
    const answeredAt = Math.min(moved ?? Infinity, decided ?? Infinity);
    const answeredBy = (at: number): boolean =>
      answeredAt !== Infinity ? answeredAt <= at : !['active', 'expired'].includes(offer.offer_status);
    // Judged once the daemon has had the grace to see it (the settle does not wait for every moment).
    const judged = facts.nowMs - TASK_GRACE_MS;
    const ranOut = expires <= judged;
    const answered = answeredBy(judged);
    const life =
      `expires ${offer.offer_expires}, made ${offer.created_at}, service ${offer.offer_status}` +
      `${moved !== undefined ? `, moved by the agent ${new Date(moved).toISOString()}` : ''}, stage ${facts.stageOf.get(id) ?? 'none'}`;
    figures.tasks += keys.size;

    for (const [key, tasks] of keys)
      if (tasks.length > 1) {
        figures.duplicate += 1;
        add(
          'duplicate task',
          offer,
          `${tasks.length} tasks with key ${key}: ${tasks.map((t) => t.id).join(', ')}; ${life}`,
        );
      }

    // Owed: each lead time while it was the nearest begun one, and the escalation, if a complete
    // pass ran inside that window while the offer existed undecided and its record was in the CRM
    // (an offer first seen after a lead time began gets only the nearest one: docs/crm-mapping.md).
    // The agent's move is taken a little early: its time is read when the CRM has answered the move.
    if (Number.isFinite(expires) && Number.isFinite(created)) {
      const undecidedUntil = Math.min(
        (moved ?? Infinity) - MOVE_MARGIN_MS,
        decided ?? Infinity,
        expires,
        facts.nowMs,
      );
      const owed: { key: string; from: number; to: number }[] = SOAK_LEADS.map((lead, n) => ({
        key: `offer:${id}:lead:${lead.label}`,
        from: Math.max(expires - lead.ms, shownFrom),
        to: Math.min(n + 1 < SOAK_LEADS.length ? expires - SOAK_LEADS[n + 1].ms : Infinity, undecidedUntil),
      }));
      owed.push({
        key: `offer:${id}:escalation`,
        from: Math.max(expires - SOAK_ESCALATE_MS, shownFrom),
        to: undecidedUntil,
      });
      for (const o of owed) {
        if (keys.has(o.key)) continue;
        const standing = facts.answeredForAWhile?.get(id) ?? [];
        const passes = facts.passes.filter(
          (p) =>
            p.startedMs >= o.from &&
            p.finishedMs <= Math.min(o.to, judged) &&
            !standing.some((s) => p.startedMs < s.toMs && p.finishedMs > s.fromMs - MOVE_MARGIN_MS),
        );
        if (passes.length === 0) continue;
        // The daemon could queue it from the end of the first complete pass in the window, or from
        // when it did queue it (a pass a kill cut short after its clocks ran), whichever came first.
        const create = facts.creates.get(o.key);
        const since = Math.min(...passes.map((p) => p.finishedMs), create?.queuedMs ?? Infinity);
        const liveMs = liveMsBetween(facts.lives, since, expires);
        if (create?.skipped && liveMs < TASK_GRACE_MS) {
          figures.skippedPastExpiry += 1;
          continue;
        }
        figures.missing += 1;
        add(
          'missing task',
          offer,
          `no task ${o.key}, owed (a complete pass ran) between ${new Date(o.from).toISOString()} and ${new Date(o.to).toISOString()}; ` +
            `${createFate(create, expires, since, facts.lives ? liveMs : undefined)}; tasks: ${[...keys.keys()].join(', ') || 'none'}; ${life}`,
        );
      }
    }

    // Open: any task of an answered or run-out offer; the task of a lead time longer than the
    // nearest begun one (superseded) once that one began at least the grace ago.
    const nearest = SOAK_LEADS.filter((l) => expires - l.ms <= judged).pop();
    for (const [key, tasks] of keys) {
      const open = tasks.filter((t) => !t.completed);
      if (open.length === 0) continue;
      const lead = SOAK_LEADS.find((l) => key.endsWith(`:lead:${l.label}`));
      const why =
        answered || ranOut
          ? answered
            ? 'the offer is answered'
            : 'the offer ran out'
          : lead && nearest && lead.ms > nearest.ms
            ? `superseded by the ${nearest.label} lead time`
            : '';
      if (!why) continue;
      figures.open += 1;
      add(
        'open task',
        offer,
        `task ${key} (${open.map((t) => t.id).join(', ')}) still open though ${why}; ${life}`,
      );
    }

    if (offer.offer_status === 'expired' && moved === undefined && expires <= judged) {
      figures.expiredUndecided += 1;
      if (facts.stageOf.get(id) === 'expired') figures.shownExpired += 1;
    }
  }
  return { violations, figures };
}

// What became of a missing task's create command, for the violation's line.
function createFate(
  create: TaskCreateRow | undefined,
  expiresMs: number,
  sinceMs: number,
  liveMs?: number,
): string {
  const had =
    `${Math.round((expiresMs - sinceMs) / 1000)} s before the expiry` +
    (liveMs !== undefined ? `, ${Math.round(liveMs / 1000)} s of it with the daemon live` : '');
  if (!create) return `never queued, though it could be from ${had}`;
  const queued = `queued ${Math.round((expiresMs - create.queuedMs) / 1000)} s before the expiry (could be from ${had})`;
  if (create.skipped) {
    const late =
      create.sentMs !== null
        ? `, reached by the drain ${Math.round((create.sentMs - expiresMs) / 1000)} s after it`
        : '';
    return `${queued}${late}, skipped: ${create.skipped}`;
  }
  return `${queued}, ${create.state}`;
}
