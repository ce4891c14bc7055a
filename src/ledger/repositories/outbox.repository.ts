import { Brackets, In, IsNull, Like, MoreThan, Not } from 'typeorm';
import { Clock } from '../../common/clock';
import { OUTBOX_STATES, OutboxCommand, OutboxState } from '../entities';
import { LedgerTransactions } from '../ledger-transactions';
import { insertIgnoringDuplicate, isPostgres, skipLocked } from '../ledger-sql';
import { sendingToUnknown } from '../interrupted-work';
import type { StatusCounts } from './inbox.repository';
import type { HistoryRepository, NewHistoryEntry } from './history.repository';
import { LedgerStateError } from './ledger-state.error';

// How the last error of a command waiting for the service to show what finishes it begins (a
// create's write-back waiting for the request id: sync/outbox/awaiting-evidence.error.ts). Such a
// command is not stuck work: the stale-work alert passes it by, and its record says what it waits for.
export const AWAITING_EVIDENCE_NOTE = 'waiting for the service to show it: ';

export interface NewOutboxCommand {
  brokerageId: string;
  idempotencyKey: string;
  operation: string;
  recordRef: string;
  payload: unknown;
}

export type UnknownResolution = { outcome: 'done'; result: unknown } | { outcome: 'pending' };

export interface OutboxReplayFilter {
  brokerageId?: string;
  ids?: number[];
  // Which states to replay; only dead, failed and unknown ever are. Default: dead. Replaying an
  // unknown command may send it twice: the CLI asks the operator to confirm it is absent first.
  states?: OutboxState[];
}

const REPLAYABLE: OutboxState[] = ['dead', 'failed', 'unknown'];

// How a dead command ended, where that proves the remote did nothing with it (deadLetter's `ended`):
// refused by the daemon before any request left, or refused by the remote's own answer.
export type DeadEnd = 'not-sent' | 'refused';
const DEAD_END_RESULT: Record<DeadEnd, object> = {
  'not-sent': { notSent: true },
  refused: { refused: true },
};

export function wasNotSent(command: Pick<OutboxCommand, 'state' | 'result'>): boolean {
  return command.state === 'dead' && (command.result as { notSent?: unknown } | null)?.notSent === true;
}

export function wasRefused(command: Pick<OutboxCommand, 'state' | 'result'>): boolean {
  return command.state === 'dead' && (command.result as { refused?: unknown } | null)?.refused === true;
}

// A dead command the remote provably did nothing with (either of deadLetter's `ended`): rearmable.
export function didNothing(command: Pick<OutboxCommand, 'state' | 'result'>): boolean {
  return wasNotSent(command) || wasRefused(command);
}

// The remote's answer to a command's write, kept the moment it came (OutboxRepository.keepAnswer):
// `sentAt` ties it to the send it answers, so a later send of the same command (after an operator's
// replay) never takes an earlier send's answer for its own.
interface KeptAnswer {
  keptAnswer: { result: unknown; sentAtMs: number };
}

// The answer a command's current send was given, where it was kept before the command was done (a
// crash between the two leaves the command `unknown` with it).
export function keptAnswerOf(
  command: Pick<OutboxCommand, 'result' | 'sentAt'>,
): { result: unknown } | undefined {
  const kept = (command.result as Partial<KeptAnswer> | null)?.keptAnswer;
  if (!kept || command.sentAt === null || kept.sentAtMs !== command.sentAt.getTime()) return undefined;
  return { result: kept.result };
}

// Remote writes as commands: pending -> sending -> done, or failed (retried later), unknown
// (reconciled; re-sent only once provably absent), dead. `sending` is committed only when the request
// is about to leave (after the rate limiter and breaker let it through), so it means "may have left";
// a command refused locally (breaker open, shutdown) stays pending and its attempt is not counted.
export class OutboxRepository {
  private readonly queuedListeners = new Set<(command: OutboxCommand) => void>();

  constructor(
    private readonly tx: LedgerTransactions,
    private readonly clock: Clock,
    private readonly history?: HistoryRepository,
  ) {}

  // Tells `listener` of each command stored by enqueue in this process, once it is committed, and of
  // each unknown one lookForSoon brought forward (the daemon drains it at once:
  // scheduler/drain-when-queued.ts). Answers the unsubscribe.
  onQueued(listener: (command: OutboxCommand) => void): () => void {
    this.queuedListeners.add(listener);
    return () => this.queuedListeners.delete(listener);
  }

  // An existing key returns the existing command untouched. `record`: the decision-history entries
  // a new command brings, appended in the same transaction (so they exist exactly when it does).
  async enqueue(
    input: NewOutboxCommand,
    record?: (command: OutboxCommand) => NewHistoryEntry[],
  ): Promise<{ command: OutboxCommand; created: boolean }> {
    const unit = record && this.history ? this.tx.run.bind(this.tx) : this.tx.exclusive.bind(this.tx);
    const queued = await unit(async (m) => {
      const now = this.clock.now();
      const { inserted } = await insertIgnoringDuplicate(m, OutboxCommand, {
        brokerageId: input.brokerageId,
        idempotencyKey: input.idempotencyKey,
        operation: input.operation,
        recordRef: input.recordRef,
        payload: input.payload as object,
        state: 'pending',
        attempts: 0,
        createdAt: now,
        updatedAt: now,
      });
      const command = await m.findOne(OutboxCommand, { where: { idempotencyKey: input.idempotencyKey } });
      if (!command) throw new Error(`outbox command ${input.idempotencyKey} was neither stored nor found`);
      if (inserted && record && this.history) await this.history.append(record(command), m);
      return { command, created: inserted };
    });
    if (queued.created) for (const listener of this.queuedListeners) listener(queued.command);
    return queued;
  }

  findByKey(idempotencyKey: string): Promise<OutboxCommand | null> {
    return this.tx.exclusive((m) => m.findOne(OutboxCommand, { where: { idempotencyKey } }));
  }

  get(id: number): Promise<OutboxCommand | null> {
    return this.tx.exclusive((m) => m.findOne(OutboxCommand, { where: { id } }));
  }

  // Pending and failed commands whose time has come, oldest first. Read-only: markSending's
  // compare-and-set takes one, and exactly one caller wins it. On PostgreSQL rows another worker is
  // marking at this moment are skipped rather than waited for (SKIP LOCKED, hence the transaction).
  // `operations`: only these (the drain's look for commands with a deadline behind a backlog).
  claimDue(brokerageId: string, limit: number, operations?: readonly string[]): Promise<OutboxCommand[]> {
    if (operations?.length === 0) return Promise.resolve([]);
    return this.due(brokerageId, ['pending', 'failed'], limit, operations);
  }

  // Committed right before the request leaves: after a crash the command is found in `sending` and
  // becomes `unknown`, never blindly re-sent.
  markSending(id: number): Promise<OutboxCommand> {
    const now = this.clock.now();
    // A send of its own voids an operator's word about an earlier one (confirmReceived).
    return this.transition(id, ['pending', 'failed'], 'sending', {
      sentAt: now,
      attempts: () => 'attempts + 1',
      receivedConfirmedAt: null,
    });
  }

  // What a command in `sending` is about to send, kept in its result until it is done: a command that
  // makes several tries of its one write (a create tried again with fewer photos) notes each before
  // it leaves, so the reconcile of a lost answer knows which try the service may have taken.
  noteSending(id: number, note: unknown): Promise<OutboxCommand> {
    return this.transition(id, ['sending'], 'sending', { result: note ?? null });
  }

  // The remote answered the write of a command in `sending`: its answer is kept in the result at once,
  // before whatever the command does next (reads, ledger writes, the CRM), so a crash meanwhile leaves
  // a command whose answer is known, finished by the next drain, not one of unknown outcome that a
  // service with nothing to list for it (a counter on an offer listed `active`) can never settle.
  keepAnswer(command: Pick<OutboxCommand, 'id' | 'sentAt'>, result: unknown): Promise<OutboxCommand> {
    if (command.sentAt === null) throw new Error(`outbox command ${command.id} was never sent`);
    const kept: KeptAnswer = { keptAnswer: { result: result ?? null, sentAtMs: command.sentAt.getTime() } };
    return this.transition(command.id, ['sending'], 'sending', { result: kept });
  }

  // `record`, here and in the transitions below: the decision-history entries of the answer,
  // appended in the same transaction, so a crash never leaves a command answered without its entry.
  complete(id: number, result: unknown, record: NewHistoryEntry[] = []): Promise<OutboxCommand> {
    const now = this.clock.now();
    return this.transition(
      id,
      ['sending', 'unknown'],
      'done',
      { result: result ?? null, completedAt: now, nextAttemptAt: null, lastError: null },
      record,
    );
  }

  // The request provably did not take effect (refused, 429, validation): try again later.
  fail(
    id: number,
    error: string,
    nextAttemptAt: Date,
    record: NewHistoryEntry[] = [],
  ): Promise<OutboxCommand> {
    return this.transition(id, ['sending'], 'failed', { lastError: error, nextAttemptAt }, record);
  }

  // A request of the command did nothing (a 429, a connection that never opened, a refusal its
  // executor answers by sending the write again in another form) and the write goes again within the
  // same drain: until that request leaves (markSending again), nothing is on its way, so a crash
  // meanwhile leaves a command to send, not one whose outcome is unknown. Back to pending, the
  // request counting no attempt (as one the limiter held back); due at once: another drain may take
  // it, and markSending's compare-and-set decides who sends it.
  refusedBeforeRetry(id: number, error: string): Promise<OutboxCommand> {
    return this.transition(id, ['sending'], 'pending', {
      lastError: error,
      nextAttemptAt: this.clock.now(),
      attempts: () => 'attempts - 1',
    });
  }

  // Not sent at all (breaker open, shutdown, the limiter): due again later, no attempt counted.
  defer(id: number, reason: string, nextAttemptAt: Date): Promise<OutboxCommand> {
    return this.transition(id, ['pending', 'failed'], 'pending', { lastError: reason, nextAttemptAt });
  }

  // The request may or may not have taken effect (timeout, 5xx, crash): reconcile from
  // `nextCheckAt` on, never re-send blindly.
  recordUnknown(
    id: number,
    error: string,
    nextCheckAt: Date | null = null,
    record: NewHistoryEntry[] = [],
  ): Promise<OutboxCommand> {
    return this.transition(
      id,
      ['sending'],
      'unknown',
      { lastError: error, nextAttemptAt: nextCheckAt },
      record,
    );
  }

  // Still neither found nor provably absent: look again from `nextCheckAt`. `seen`: what this look
  // saw that the next must know, kept in the result (left as it is when undefined).
  postponeReconcile(id: number, note: string, nextCheckAt: Date, seen?: unknown): Promise<OutboxCommand> {
    return this.transition(id, ['unknown'], 'unknown', {
      lastError: note,
      nextAttemptAt: nextCheckAt,
      ...(seen !== undefined ? { result: seen } : {}),
    });
  }

  // New evidence of an unknown command's outcome has come (an offer event naming the deal whose
  // create's answer was lost): its next look is brought forward to now, where it was later, and the
  // listeners told. Answers whether it was. A command in none of `states` is left alone (a failed
  // one: a write-back waiting for the service to name the request the event names).
  async lookForSoon(id: number, states: readonly OutboxState[] = ['unknown']): Promise<boolean> {
    const now = this.clock.now();
    const moved = await this.tx.run(async (m) => {
      const result = await m
        .createQueryBuilder()
        .update(OutboxCommand)
        .set({ nextAttemptAt: now, updatedAt: now })
        .where({ id, state: In([...states]), nextAttemptAt: MoreThan(now) })
        .execute();
      return (result.affected ?? 0) === 1 ? m.findOne(OutboxCommand, { where: { id } }) : null;
    });
    if (moved) for (const listener of this.queuedListeners) listener(moved);
    return moved !== null;
  }

  // An operator checked the service and says it holds this unknown command's write: the next drain
  // finishes it as answered with no body (OutboxDrainService), due at once. Only an unknown command;
  // anything else (the drain found it meanwhile, or it was replayed) throws LedgerStateError.
  async confirmReceived(id: number): Promise<OutboxCommand> {
    const now = this.clock.now();
    const confirmed = await this.transition(id, ['unknown'], 'unknown', {
      receivedConfirmedAt: now,
      nextAttemptAt: now,
    });
    for (const listener of this.queuedListeners) listener(confirmed);
    return confirmed;
  }

  // Unknown commands whose next reconcile is due, oldest first.
  unknownDue(brokerageId: string, limit: number): Promise<OutboxCommand[]> {
    return this.due(brokerageId, ['unknown'], limit);
  }

  // Commands in `states` whose next attempt (or check) has come, oldest first; on PostgreSQL rows
  // another worker holds are skipped.
  private due(
    brokerageId: string,
    states: OutboxState[],
    limit: number,
    operations?: readonly string[],
  ): Promise<OutboxCommand[]> {
    const read = isPostgres(this.tx.dataSource) ? this.tx.run.bind(this.tx) : this.tx.exclusive.bind(this.tx);
    return read((m) => {
      const query = skipLocked(m.createQueryBuilder(OutboxCommand, 'c'))
        .where('c.brokerageId = :brokerageId', { brokerageId })
        .andWhere('c.state IN (:...states)', { states });
      if (operations) query.andWhere('c.operation IN (:...operations)', { operations });
      return query
        .andWhere(
          new Brackets((w) =>
            w.where('c.nextAttemptAt IS NULL').orWhere('c.nextAttemptAt <= :now', { now: this.clock.now() }),
          ),
        )
        .orderBy('c.id')
        .limit(limit)
        .getMany();
    });
  }

  resolveUnknown(
    id: number,
    resolution: UnknownResolution,
    record: NewHistoryEntry[] = [],
  ): Promise<OutboxCommand> {
    if (resolution.outcome === 'done') {
      return this.transition(
        id,
        ['unknown'],
        'done',
        { result: resolution.result ?? null, completedAt: this.clock.now(), lastError: null },
        record,
      );
    }
    return this.transition(id, ['unknown'], 'pending', { nextAttemptAt: null, sentAt: null });
  }

  // `ended`: `not-sent`, refused by the daemon itself before any request left (a counter past its
  // own expiry), so the remote never saw it; `refused`, answered with a refusal (a 4xx), so the
  // remote did nothing with it. The agent's next request of this kind may take its place (rearm).
  deadLetter(
    id: number,
    reason: string,
    record: NewHistoryEntry[] = [],
    ended?: DeadEnd,
  ): Promise<OutboxCommand> {
    return this.transition(
      id,
      ['pending', 'sending', 'failed', 'unknown'],
      'dead',
      { lastError: reason, ...(ended ? { result: DEAD_END_RESULT[ended] } : {}) },
      record,
    );
  }

  // A dead command the remote did nothing with (deadLetter's `ended`), back to pending with the
  // agent's new request: the one command of its key, so a second one can never exist beside it.
  async rearm(
    command: OutboxCommand,
    payload: unknown,
    record: NewHistoryEntry[] = [],
  ): Promise<OutboxCommand> {
    if (!didNothing(command))
      throw new Error(`outbox command ${command.id} may have been applied; it cannot be rearmed`);
    const rearmed = await this.transition(
      command.id,
      ['dead'],
      'pending',
      {
        payload,
        attempts: 0,
        lastError: null,
        result: null,
        nextAttemptAt: null,
        sentAt: null,
        completedAt: null,
      },
      record,
    );
    for (const listener of this.queuedListeners) listener(rearmed);
    return rearmed;
  }

  // Operator replay: back to pending, due now. Returns how many.
  replay(filter: OutboxReplayFilter = {}): Promise<number> {
    const states = (filter.states ?? ['dead']).filter((s) => REPLAYABLE.includes(s));
    if (states.length === 0 || filter.ids?.length === 0) return Promise.resolve(0);
    return this.tx.run(async (m) => {
      const query = m
        .createQueryBuilder()
        .update(OutboxCommand)
        .set({
          state: 'pending',
          nextAttemptAt: null,
          attempts: 0,
          receivedConfirmedAt: null,
          updatedAt: this.clock.now(),
        })
        .where('state IN (:...states)', { states });
      if (filter.brokerageId !== undefined)
        query.andWhere('brokerage_id = :brokerageId', { brokerageId: filter.brokerageId });
      if (filter.ids !== undefined) query.andWhere('id IN (:...ids)', { ids: filter.ids });
      return (await query.execute()).affected ?? 0;
    });
  }

  // At start: commands a crash left in `sending` may or may not have reached the service. With a
  // brokerage: only its commands, when a worker takes over that brokerage's drain from a dead one.
  recoverInterrupted(brokerageId?: string): Promise<number> {
    return this.tx.run((m) => sendingToUnknown(m, this.clock.now(), { brokerageId }));
  }

  listByState(brokerageId: string, states: OutboxState[], limit = 1000): Promise<OutboxCommand[]> {
    return this.tx.exclusive((m) =>
      m.find(OutboxCommand, { where: { brokerageId, state: In(states) }, order: { id: 'ASC' }, take: limit }),
    );
  }

  // The brokerage's commands of these operations that are not settled (not done, not dead), all of
  // them, oldest first: few at any time, and a caller that reasons from their absence needs every one.
  unsettled(brokerageId: string, operations: readonly string[]): Promise<OutboxCommand[]> {
    return this.tx.exclusive((m) =>
      m.find(OutboxCommand, {
        where: { brokerageId, operation: In([...operations]), state: Not(In(['done', 'dead'])) },
        order: { id: 'ASC' },
      }),
    );
  }

  // Each operation that still has work to do (not done, not dead), with how many commands and for
  // which brokerages: what the daemon must know how to execute before it starts.
  liveOperations(): Promise<{ operation: string; count: number; brokerages: string[] }[]> {
    return this.tx.exclusive(async (m) => {
      const rows = await m
        .createQueryBuilder(OutboxCommand, 'c')
        .select('c.operation', 'operation')
        .addSelect('c.brokerageId', 'brokerageId')
        .addSelect('COUNT(*)', 'count')
        .where('c.state NOT IN (:...settled)', { settled: ['done', 'dead'] })
        .groupBy('c.operation')
        .addGroupBy('c.brokerageId')
        .getRawMany<{ operation: string; brokerageId: string; count: number | string }>();
      const byOperation = new Map<string, { operation: string; count: number; brokerages: string[] }>();
      for (const row of rows) {
        const entry = byOperation.get(row.operation) ?? {
          operation: row.operation,
          count: 0,
          brokerages: [],
        };
        entry.count += Number(row.count);
        entry.brokerages.push(row.brokerageId);
        byOperation.set(row.operation, entry);
      }
      return [...byOperation.values()];
    });
  }

  // Whether a command on the record queued after command `afterId` was dead-lettered (refused, given
  // up): its error is the record's latest word, which the success of an earlier command (or of its
  // CRM write-back, retried later) must neither resolve nor clear.
  refusedAfter(brokerageId: string, recordRef: string, afterId: number): Promise<boolean> {
    return this.tx.exclusive((m) =>
      m.exists(OutboxCommand, { where: { brokerageId, recordRef, state: 'dead', id: MoreThan(afterId) } }),
    );
  }

  // The brokerage's latest done commands of one operation, newest first (what earlier sends learnt).
  latestDone(brokerageId: string, operation: string, limit: number): Promise<OutboxCommand[]> {
    return this.tx.exclusive((m) =>
      m.find(OutboxCommand, {
        where: { brokerageId, operation, state: 'done' },
        order: { id: 'DESC' },
        take: limit,
      }),
    );
  }

  // The brokerage's oldest command in one of these states (what the alerts measure age by).
  // `exceptAwaitingEvidence`: leaving out those waiting for the service to show what finishes them
  // (AWAITING_EVIDENCE_NOTE), which no person can hurry.
  oldest(
    brokerageId: string,
    states: OutboxState[],
    { exceptAwaitingEvidence = false } = {},
  ): Promise<OutboxCommand | null> {
    const where = { brokerageId, state: In(states) };
    return this.tx.exclusive((m) =>
      m.findOne(OutboxCommand, {
        where: exceptAwaitingEvidence
          ? [
              { ...where, lastError: IsNull() },
              { ...where, lastError: Not(Like(`${AWAITING_EVIDENCE_NOTE}%`)) },
            ]
          : where,
        order: { createdAt: 'ASC', id: 'ASC' },
      }),
    );
  }

  depth(brokerageId?: string): Promise<StatusCounts<OutboxState>> {
    return this.tx.exclusive(async (m) => {
      const query = m
        .createQueryBuilder(OutboxCommand, 'c')
        .select('c.state', 'state')
        .addSelect('COUNT(*)', 'count');
      if (brokerageId !== undefined) query.where('c.brokerageId = :brokerageId', { brokerageId });
      const rows = await query
        .groupBy('c.state')
        .getRawMany<{ state: OutboxState; count: number | string }>();
      const counts = Object.fromEntries(OUTBOX_STATES.map((s) => [s, 0])) as StatusCounts<OutboxState>;
      for (const row of rows) counts[row.state] = Number(row.count);
      return counts;
    });
  }

  private transition(
    id: number,
    from: OutboxState[],
    to: OutboxState,
    set: Record<string, unknown>,
    record: NewHistoryEntry[] = [],
  ): Promise<OutboxCommand> {
    return this.tx.run(async (m) => {
      const result = await m
        .createQueryBuilder()
        .update(OutboxCommand)
        .set({ ...set, state: to, updatedAt: this.clock.now() })
        .where('id = :id AND state IN (:...from)', { id, from })
        .execute();
      const current = await m.findOne(OutboxCommand, { where: { id } });
      if ((result.affected ?? 0) !== 1 || !current) {
        throw new LedgerStateError('outbox command', id, current?.state ?? null, to, from);
      }
      if (record.length > 0 && this.history) await this.history.append(record, m);
      return current;
    });
  }
}
