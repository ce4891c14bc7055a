import { Brackets, EntityManager, In, IsNull, MoreThan } from 'typeorm';
import { Clock } from '../../common/clock';
import { INBOX_STATUSES, InboxEvent, InboxStatus } from '../entities';
import { GroupCommitter } from '../group-commit';
import { processingToPending } from '../interrupted-work';
import { LedgerTransactions } from '../ledger-transactions';
import { insertIgnoringDuplicate, skipLocked } from '../ledger-sql';
import { LedgerStateError } from './ledger-state.error';

export interface NewInboxEvent {
  brokerageId: string;
  dedupeKey: string;
  eventType: string;
  orderingKey?: string | null;
  payload: string;
  // Stored but held for the operator instead of being processed.
  flagged?: boolean;
  // Why it is held: shown by `cli inbox` and the status page beside the event.
  flagReason?: string;
}

export interface InboxListFilter {
  brokerageId?: string;
  eventType?: string;
  statuses?: InboxStatus[];
  orderingKey?: string;
  limit?: number;
}

export type StatusCounts<S extends string> = Record<S, number>;

// Unfinished events block later events with the same ordering key; dead and flagged ones do not.
const UNFINISHED: InboxStatus[] = ['pending', 'processing', 'failed'];

// The earliest unfinished event sharing the candidate's ordering key (plain SQL, valid on both databases).
const FIRST_UNFINISHED_OF_KEY =
  'SELECT MIN(f.id) FROM inbox_events f WHERE f.brokerage_id = e.brokerage_id ' +
  'AND f.ordering_key = e.ordering_key AND f.status IN (:...unfinished)';

// Received webhook events: stored before they are acknowledged, processed by a worker, retried,
// dead-lettered with a reason.
export class InboxRepository {
  private readonly intake: GroupCommitter<NewInboxEvent, { stored: boolean; id: number }>;

  constructor(
    private readonly tx: LedgerTransactions,
    private readonly clock: Clock,
  ) {
    this.intake = new GroupCommitter(tx, (m, event) => this.insertIfNew(m, event));
  }

  // The webhook hot path: one INSERT ... ON CONFLICT DO NOTHING per event, durable on return.
  // Concurrent deliveries share a transaction (group commit), so a burst costs one fsync, not one each.
  storeIfNew(event: NewInboxEvent): Promise<{ stored: boolean; id: number }> {
    return this.intake.submit(event);
  }

  private async insertIfNew(
    m: EntityManager,
    event: NewInboxEvent,
  ): Promise<{ stored: boolean; id: number }> {
    const { inserted, id } = await insertIgnoringDuplicate(m, InboxEvent, {
      brokerageId: event.brokerageId,
      dedupeKey: event.dedupeKey,
      eventType: event.eventType,
      orderingKey: event.orderingKey ?? null,
      payload: event.payload,
      status: event.flagged ? 'flagged' : 'pending',
      deadReason: event.flagged ? (event.flagReason ?? null) : null,
      attempts: 0,
      receivedAt: this.clock.now(),
    });
    if (inserted && id !== null) return { stored: true, id };
    const existing = await m.findOne(InboxEvent, {
      select: { id: true },
      where: { dedupeKey: event.dedupeKey },
    });
    if (!existing) throw new Error(`inbox event ${event.dedupeKey} was neither stored nor found`);
    return { stored: false, id: existing.id };
  }

  // A delivery we could not parse, kept once for the operator: a sender retrying the same body six
  // times leaves one dead row, not six (the key hashes the raw bytes, see malformedDedupeKey).
  async storeDeadLetter(input: {
    brokerageId: string;
    dedupeKey: string;
    reason: string;
    rawBody: string;
  }): Promise<{ stored: boolean; id: number }> {
    return this.tx.exclusive(async (m) => {
      const now = this.clock.now();
      const { inserted, id } = await insertIgnoringDuplicate(m, InboxEvent, {
        brokerageId: input.brokerageId,
        dedupeKey: input.dedupeKey,
        eventType: 'malformed',
        orderingKey: null,
        payload: input.rawBody,
        status: 'dead',
        attempts: 0,
        deadReason: input.reason,
        receivedAt: now,
        processedAt: now,
      });
      if (inserted && id !== null) return { stored: true, id };
      const existing = await m.findOne(InboxEvent, {
        select: { id: true },
        where: { dedupeKey: input.dedupeKey },
      });
      if (!existing) throw new Error(`dead letter ${input.dedupeKey} was neither stored nor found`);
      return { stored: false, id: existing.id };
    });
  }

  // Claims due events (marks them processing). Per ordering key only the earliest unfinished event
  // can be claimed, so the events of one offer request apply in order of receipt. On PostgreSQL the
  // rows are locked as they are read (SKIP LOCKED): concurrent workers claim disjoint events.
  claimDue(limit: number, opts: { brokerageId?: string } = {}): Promise<InboxEvent[]> {
    return this.tx.run(async (m) => {
      const now = this.clock.now();
      const query = m
        .createQueryBuilder(InboxEvent, 'e')
        .where('e.status IN (:...claimable)', { claimable: ['pending', 'failed'] })
        .andWhere(
          new Brackets((w) => w.where('e.nextAttemptAt IS NULL').orWhere('e.nextAttemptAt <= :now', { now })),
        )
        .andWhere(`(e.ordering_key IS NULL OR e.id = (${FIRST_UNFINISHED_OF_KEY}))`, {
          unfinished: UNFINISHED,
        })
        .orderBy('e.id')
        .limit(limit);
      if (opts.brokerageId !== undefined)
        query.andWhere('e.brokerageId = :brokerageId', { brokerageId: opts.brokerageId });
      const events = await skipLocked(query).getMany();
      if (events.length === 0) return [];
      await m
        .createQueryBuilder()
        .update(InboxEvent)
        .set({ status: 'processing', attempts: () => 'attempts + 1' })
        .whereInIds(events.map((e) => e.id))
        .andWhere('status IN (:...claimable)', { claimable: ['pending', 'failed'] })
        .execute();
      return events.map((e) => ({ ...e, status: 'processing' as const, attempts: e.attempts + 1 }));
    });
  }

  async markDone(id: number): Promise<void> {
    await this.transition(id, ['processing'], {
      status: 'done',
      processedAt: this.clock.now(),
      nextAttemptAt: null,
    });
  }

  // Failed events of one ordering key made due now: what they waited for (a request's link, a
  // counter's) has just been written, so they need not sit out the rest of their back-off. `null`:
  // those that name no request (an UPDATE naming only the offer has no ordering key).
  async retryWaitingNow(brokerageId: string, orderingKey: string | null): Promise<number> {
    const now = this.clock.now();
    return this.tx.run(async (m) => {
      const result = await m
        .createQueryBuilder()
        .update(InboxEvent)
        .set({ nextAttemptAt: now })
        .where({
          brokerageId,
          orderingKey: orderingKey ?? IsNull(),
          status: 'failed',
          nextAttemptAt: MoreThan(now),
        })
        .execute();
      return result.affected ?? 0;
    });
  }

  // Back to claimable at `nextAttemptAt`.
  async markFailed(id: number, error: string, nextAttemptAt: Date): Promise<void> {
    await this.transition(id, ['processing'], { status: 'failed', lastError: error, nextAttemptAt });
  }

  async deadLetter(id: number, reason: string): Promise<void> {
    await this.transition(id, ['pending', 'processing', 'failed', 'flagged'], {
      status: 'dead',
      deadReason: reason,
      processedAt: this.clock.now(),
    });
  }

  // A handler refused the event's claim (EventRefusedError): kept with the reason, never applied.
  async flag(id: number, reason: string): Promise<void> {
    await this.transition(id, ['processing'], {
      status: 'flagged',
      deadReason: reason,
      processedAt: this.clock.now(),
      nextAttemptAt: null,
    });
  }

  // Operator replay: dead (and flagged) events become pending again. Returns how many.
  async replayDead(filter: { brokerageId?: string; ids?: number[] } = {}): Promise<number> {
    return this.tx.run(async (m) => {
      const query = m
        .createQueryBuilder()
        .update(InboxEvent)
        .set({ status: 'pending', nextAttemptAt: null, deadReason: null, processedAt: null })
        .where('status IN (:...replayable)', { replayable: ['dead', 'flagged'] })
        // Malformed bodies cannot be processed; replaying them would only dead-letter them again.
        .andWhere('event_type <> :malformed', { malformed: 'malformed' });
      if (filter.brokerageId !== undefined)
        query.andWhere('brokerage_id = :brokerageId', { brokerageId: filter.brokerageId });
      if (filter.ids !== undefined) {
        if (filter.ids.length === 0) return 0;
        query.andWhere('id IN (:...ids)', { ids: filter.ids });
      }
      return (await query.execute()).affected ?? 0;
    });
  }

  // At start: events a crash left in processing are claimable again. With a brokerage: only its
  // events, when a worker takes over that brokerage's inbox drain from a dead one.
  recoverInterrupted(brokerageId?: string): Promise<number> {
    return this.tx.run((m) => processingToPending(m, { brokerageId }));
  }

  // The brokerage's oldest event in one of these statuses (what the alerts measure age by).
  oldest(brokerageId: string, statuses: InboxStatus[]): Promise<InboxEvent | null> {
    return this.tx.exclusive((m) =>
      m.findOne(InboxEvent, {
        where: { brokerageId, status: In(statuses) },
        order: { receivedAt: 'ASC', id: 'ASC' },
      }),
    );
  }

  depth(brokerageId?: string): Promise<StatusCounts<InboxStatus>> {
    return this.tx.exclusive(async (m) => {
      const query = m
        .createQueryBuilder(InboxEvent, 'e')
        .select('e.status', 'status')
        .addSelect('COUNT(*)', 'count');
      if (brokerageId !== undefined) query.where('e.brokerageId = :brokerageId', { brokerageId });
      const rows = await query
        .groupBy('e.status')
        .getRawMany<{ status: InboxStatus; count: number | string }>();
      const counts = Object.fromEntries(INBOX_STATUSES.map((s) => [s, 0])) as StatusCounts<InboxStatus>;
      for (const row of rows) counts[row.status] = Number(row.count);
      return counts;
    });
  }

  // Newest first.
  list(filter: InboxListFilter = {}): Promise<InboxEvent[]> {
    return this.tx.exclusive((m) =>
      m.find(InboxEvent, {
        where: {
          brokerageId: filter.brokerageId,
          eventType: filter.eventType,
          status: filter.statuses ? In(filter.statuses) : undefined,
          orderingKey: filter.orderingKey,
        },
        order: { id: 'DESC' },
        take: filter.limit ?? 100,
      }),
    );
  }

  get(id: number): Promise<InboxEvent | null> {
    return this.tx.exclusive((m) => m.findOne(InboxEvent, { where: { id } }));
  }

  private async transition(id: number, from: InboxStatus[], set: Partial<InboxEvent>): Promise<void> {
    await this.tx.run(async (m) => {
      const result = await m.update(InboxEvent, { id, status: In(from) }, set);
      if ((result.affected ?? 0) === 1) return;
      const current = await m.findOne(InboxEvent, { select: { id: true, status: true }, where: { id } });
      throw new LedgerStateError('inbox event', id, current?.status ?? null, String(set.status), from);
    });
  }
}
