import { EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { Cursor } from '../entities';
import { LedgerTransactions } from '../ledger-transactions';

// Where each poll resumes. The cursor moves in the same transaction as the page's writes, so it can
// never run ahead of the writes it covers (a crash re-reads the page; the link hashes absorb it).
export class CursorRepository {
  constructor(
    private readonly tx: LedgerTransactions,
    private readonly clock: Clock,
  ) {}

  async get(brokerageId: string, stream: string): Promise<string | null> {
    const row = await this.tx.exclusive((m) => m.findOne(Cursor, { where: { brokerageId, stream } }));
    return row?.cursor ?? null;
  }

  // Runs `work` (the page's ledger writes) and moves the cursor, all in one transaction; if `work`
  // throws, nothing of it is kept and the cursor stays where it was.
  commitPage(
    brokerageId: string,
    stream: string,
    cursor: string,
    work?: (manager: EntityManager) => Promise<void>,
  ): Promise<void> {
    return this.tx.run(async (m) => {
      if (work) await work(m);
      await m
        .createQueryBuilder()
        .insert()
        .into(Cursor)
        .values({ brokerageId, stream, cursor, updatedAt: this.clock.now() })
        .orUpdate(['cursor', 'updated_at'], ['brokerage_id', 'stream'])
        .updateEntity(false)
        .execute();
    });
  }

  // Forget a stream's position (the next poll starts from the beginning).
  async reset(brokerageId: string, stream: string): Promise<boolean> {
    const result = await this.tx.run((m) => m.delete(Cursor, { brokerageId, stream }));
    return (result.affected ?? 0) > 0;
  }
}
