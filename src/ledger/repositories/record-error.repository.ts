import { IsNull } from 'typeorm';
import { Clock } from '../../common/clock';
import { RecordError } from '../entities';
import { LedgerTransactions } from '../ledger-transactions';

export interface RecordErrorInput {
  brokerageId: string;
  recordKind: string;
  recordRef: string;
  // Omitted when the error concerns the whole record.
  field?: string | null;
  message: string;
  code?: string | null;
}

// Record-level failures, per record and field, shown to the operator until the record goes through.
export class RecordErrorRepository {
  constructor(
    private readonly tx: LedgerTransactions,
    private readonly clock: Clock,
  ) {}

  // Upsert: a repeat bumps occurrences and lastSeenAt and re-opens a resolved error.
  record(input: RecordErrorInput): Promise<RecordError> {
    return this.tx.run(async (m) => {
      const now = this.clock.now();
      const key = {
        brokerageId: input.brokerageId,
        recordKind: input.recordKind,
        recordRef: input.recordRef,
        field: input.field ?? '',
      };
      // The transformer maps null <-> '' on values, not in WHERE clauses, hence the raw key above.
      const existing = await m
        .createQueryBuilder(RecordError, 'e')
        .where('e.brokerageId = :brokerageId AND e.recordKind = :recordKind', key)
        .andWhere('e.recordRef = :recordRef AND e.field = :field', key)
        .getOne();
      if (!existing) {
        return m.save(
          m.create(RecordError, {
            ...key,
            field: input.field ?? null,
            message: input.message,
            code: input.code ?? null,
            firstSeenAt: now,
            lastSeenAt: now,
            occurrences: 1,
            resolvedAt: null,
          }),
        );
      }
      await m.update(
        RecordError,
        { id: existing.id },
        {
          message: input.message,
          code: input.code ?? null,
          lastSeenAt: now,
          occurrences: existing.occurrences + 1,
          resolvedAt: null,
        },
      );
      return (await m.findOne(RecordError, { where: { id: existing.id } }))!;
    });
  }

  // The record went through: every open error on it (all fields) is resolved. Returns how many.
  resolve(brokerageId: string, recordKind: string, recordRef: string): Promise<number> {
    return this.tx.run(async (m) => {
      const result = await m.update(
        RecordError,
        { brokerageId, recordKind, recordRef, resolvedAt: IsNull() },
        { resolvedAt: this.clock.now() },
      );
      return result.affected ?? 0;
    });
  }

  countOpen(brokerageId?: string): Promise<number> {
    return this.tx.exclusive((m) => m.count(RecordError, { where: { brokerageId, resolvedAt: IsNull() } }));
  }

  // Most recently seen first.
  listOpen(filter: { brokerageId?: string; limit?: number } = {}): Promise<RecordError[]> {
    return this.tx.exclusive((m) =>
      m.find(RecordError, {
        where: { brokerageId: filter.brokerageId, resolvedAt: IsNull() },
        order: { lastSeenAt: 'DESC', id: 'DESC' },
        take: filter.limit ?? 100,
      }),
    );
  }
}
