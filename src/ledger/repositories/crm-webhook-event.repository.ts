import type { EntityManager, QueryResult } from 'typeorm';
import { Clock } from '../../common/clock';
import { CrmWebhookEvent } from '../entities/crm-webhook-event.entity';
import { isPostgres } from '../ledger-sql';
import { LedgerTransactions } from '../ledger-transactions';

// The event ids of a brokerage's CRM change notifications already taken. `remember` is one insert
// that ignores ids already there, so two workers receiving the same redelivery at once take it once.
export class CrmWebhookEventRepository {
  constructor(
    private readonly tx: LedgerTransactions,
    private readonly clock: Clock,
  ) {}

  // Stores the ids and returns those that were not stored before, in the order given.
  remember(brokerageId: string, crm: string, eventIds: readonly string[]): Promise<string[]> {
    const ids = [...new Set(eventIds)];
    if (ids.length === 0) return Promise.resolve([]);
    const receivedAt = this.clock.now();
    return this.tx.run(async (m) => {
      const rows = ids.map((eventId) => ({ brokerageId, crm, eventId, receivedAt }));
      if (isPostgres(m.connection)) {
        const result = await insertIgnoring(m, rows).returning('event_id').execute();
        const fresh = new Set((result.raw as { event_id: string }[]).map((r) => r.event_id));
        return ids.filter((id) => fresh.has(id));
      }
      const fresh: string[] = [];
      for (const row of rows) {
        const [sql, parameters] = insertIgnoring(m, [row]).getQueryAndParameters();
        const result: QueryResult = await m.queryRunner!.query(sql, parameters, true);
        if (result.affected === 1) fresh.push(row.eventId);
      }
      return fresh;
    });
  }

  // Forgets ids taken by a request that then failed, so the sender's retry is not dropped.
  async forget(brokerageId: string, crm: string, eventIds: readonly string[]): Promise<void> {
    if (eventIds.length === 0) return;
    await this.tx.run((m) =>
      m
        .createQueryBuilder()
        .delete()
        .from(CrmWebhookEvent)
        .where('brokerage_id = :brokerageId AND crm = :crm AND event_id IN (:...ids)', {
          brokerageId,
          crm,
          ids: [...eventIds],
        })
        .execute(),
    );
  }

  // When the last notification with a true signature arrived (null: none kept).
  async lastReceivedAt(brokerageId: string, crm: string): Promise<Date | null> {
    const row = await this.tx.exclusive((m) =>
      m.findOne(CrmWebhookEvent, { where: { brokerageId, crm }, order: { receivedAt: 'DESC' } }),
    );
    return row?.receivedAt ?? null;
  }
}

function insertIgnoring(m: EntityManager, rows: Partial<CrmWebhookEvent>[]) {
  return m.createQueryBuilder().insert().into(CrmWebhookEvent).values(rows).orIgnore().updateEntity(false);
}
