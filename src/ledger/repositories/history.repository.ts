import { createHash } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { canonicalJson } from '../../common/canonical-json';
import { Clock } from '../../common/clock';
import { HistoryChain, HistoryEntry, type HistorySource } from '../entities/history-entry.entity';
import { LedgerTransactions } from '../ledger-transactions';
import { isPostgres } from '../ledger-sql';

export interface NewHistoryEntry {
  brokerageId: string;
  record: string;
  source: HistorySource;
  kind: string;
  summary: string;
  // Ids, amounts, statuses: never a secret or personal data.
  detail?: Record<string, unknown>;
  outcome: string;
}

export interface HistoryExportFilter {
  from: Date;
  to: Date;
  brokerageId?: string;
}

export interface HistoryBreak {
  brokerageId: string;
  id: number | null;
  seq: number;
  record: string | null;
  reason: string;
}

export interface HistoryVerification {
  ok: boolean;
  checked: number;
  brokerages: number;
  broken: HistoryBreak | null;
}

const PAGE = 1000;

// The hash of an entry: sha256 over the canonical JSON of its fields and the hash before it.
export function historyHash(entry: Omit<HistoryEntry, 'id' | 'hash'>): string {
  const fields = {
    at: entry.at.toISOString(),
    brokerageId: entry.brokerageId,
    detail: entry.detail,
    kind: entry.kind,
    outcome: entry.outcome,
    prevHash: entry.prevHash,
    record: entry.record,
    seq: entry.seq,
    source: entry.source,
    summary: entry.summary,
  };
  return createHash('sha256').update(canonicalJson(fields)).digest('hex');
}

// The decision history: append-only, one hash chain per brokerage. An append takes the brokerage's
// chain head under a row lock (PostgreSQL; SQLite's write transactions are serial anyway) in the same
// transaction as the entries, so workers appending for one brokerage take turns and others do not wait.
export class HistoryRepository {
  constructor(
    private readonly tx: LedgerTransactions,
    private readonly clock: Clock,
  ) {}

  // Inside the caller's transaction when given its manager: the entries then exist exactly when the
  // change they describe committed.
  append(entries: NewHistoryEntry[], manager?: EntityManager): Promise<HistoryEntry[]> {
    if (entries.length === 0) return Promise.resolve([]);
    if (manager) return this.appendWith(manager, entries);
    return this.tx.run((m) => this.appendWith(m, entries));
  }

  // A record's entries, oldest first, across brokerages unless one is named.
  list(record: string, brokerageId?: string): Promise<HistoryEntry[]> {
    return this.tx.exclusive((m) =>
      m.find(HistoryEntry, {
        where: { record, ...(brokerageId ? { brokerageId } : {}) },
        order: { brokerageId: 'ASC', seq: 'ASC' },
      }),
    );
  }

  // Entries in [from, to), by brokerage then chain order, a page at a time.
  async *export(filter: HistoryExportFilter): AsyncGenerator<HistoryEntry> {
    let afterId = 0;
    for (;;) {
      const page = await this.tx.exclusive((m) => {
        const query = m
          .createQueryBuilder(HistoryEntry, 'h')
          .where('h.at >= :from AND h.at < :to AND h.id > :afterId', { ...filter, afterId })
          .orderBy('h.id', 'ASC')
          .take(PAGE);
        if (filter.brokerageId) query.andWhere('h.brokerageId = :b', { b: filter.brokerageId });
        return query.getMany();
      });
      for (const entry of page) yield entry;
      if (page.length < PAGE) return;
      afterId = page[page.length - 1].id;
    }
  }

  // Walks each brokerage's chain from its anchor: the first entry whose hash does not match its
  // fields (edited) or that does not follow the one before it (one removed) is named.
  async verify(brokerageId?: string): Promise<HistoryVerification> {
    const chains = await this.tx.exclusive((m) =>
      m.find(HistoryChain, { where: brokerageId ? { brokerageId } : {}, order: { brokerageId: 'ASC' } }),
    );
    let checked = 0;
    for (const chain of chains) {
      const result = await this.verifyChain(chain);
      checked += result.checked;
      if (result.broken) return { ok: false, checked, brokerages: chains.length, broken: result.broken };
    }
    return { ok: true, checked, brokerages: chains.length, broken: null };
  }

  // Removes, per brokerage, the longest prefix of the chain older than the cutoff, and anchors the
  // chain at the last entry removed, so verify still passes. Returns the entries removed.
  prune(olderThan: Date, manager?: EntityManager): Promise<number> {
    if (manager) return this.pruneWith(manager, olderThan);
    return this.tx.run((m) => this.pruneWith(m, olderThan));
  }

  private async pruneWith(m: EntityManager, olderThan: Date): Promise<number> {
    let removed = 0;
    const chains = await m.find(HistoryChain, { order: { brokerageId: 'ASC' } });
    for (const { brokerageId } of chains) {
      const chain = await this.lockChain(m, brokerageId);
      const young = await m
        .createQueryBuilder(HistoryEntry, 'h')
        .select('MIN(h.seq)', 'seq')
        .where('h.brokerageId = :brokerageId AND h.at >= :olderThan', { brokerageId, olderThan })
        .getRawOne<{ seq: number | string | null }>();
      const lastOld = young?.seq === null || young?.seq === undefined ? chain.headSeq : Number(young.seq) - 1;
      if (lastOld <= chain.anchorSeq) continue;
      const anchor = await m.findOne(HistoryEntry, { where: { brokerageId, seq: lastOld } });
      if (!anchor) continue;
      const result = await m
        .createQueryBuilder()
        .delete()
        .from(HistoryEntry)
        .where('brokerage_id = :brokerageId AND seq <= :lastOld', { brokerageId, lastOld })
        .execute();
      removed += result.affected ?? 0;
      await m.update(
        HistoryChain,
        { brokerageId },
        { anchorSeq: anchor.seq, anchorHash: anchor.hash, anchoredAt: this.clock.now() },
      );
    }
    return removed;
  }

  private async appendWith(m: EntityManager, entries: NewHistoryEntry[]): Promise<HistoryEntry[]> {
    const at = this.clock.now();
    const saved: HistoryEntry[] = [];
    // Locked in one order, so two appends spanning the same brokerages cannot deadlock.
    const brokerages = [...new Set(entries.map((e) => e.brokerageId))].sort();
    for (const brokerageId of brokerages) {
      const chain = await this.lockChain(m, brokerageId);
      let seq = chain.headSeq;
      let prevHash = chain.headHash;
      for (const entry of entries.filter((e) => e.brokerageId === brokerageId)) {
        seq += 1;
        const row = {
          brokerageId,
          seq,
          record: entry.record,
          at,
          source: entry.source,
          kind: entry.kind,
          summary: entry.summary,
          detail: canonicalJson(entry.detail ?? {}),
          outcome: entry.outcome,
          prevHash,
        };
        const hash = historyHash(row);
        const inserted = await m.save(HistoryEntry, m.create(HistoryEntry, { ...row, hash }));
        saved.push(inserted);
        prevHash = hash;
      }
      await m.update(HistoryChain, { brokerageId }, { headSeq: seq, headHash: prevHash });
    }
    return saved;
  }

  // The brokerage's chain row, created on first use, locked until the transaction ends.
  private async lockChain(m: EntityManager, brokerageId: string): Promise<HistoryChain> {
    await m
      .createQueryBuilder()
      .insert()
      .into(HistoryChain)
      .values({ brokerageId, headSeq: 0, headHash: '', anchorSeq: 0, anchorHash: '', anchoredAt: null })
      .orIgnore()
      .updateEntity(false)
      .execute();
    const query = m
      .createQueryBuilder(HistoryChain, 'c')
      .where('c.brokerageId = :brokerageId', { brokerageId });
    if (isPostgres(m.connection)) query.setLock('pessimistic_write');
    const chain = await query.getOne();
    if (!chain) throw new Error(`history chain of brokerage ${brokerageId} was neither created nor found`);
    return chain;
  }

  // The chain is read while the daemon may go on appending (or a maintenance run pruning) between
  // verify's reads: an append writes its entries and moves the head in one transaction, so entries
  // past the head read at the start are the chain grown since, checked against the head read again;
  // a prune that moved the anchor past where the walk stood starts it again from the new anchor.
  // Only an entry past the head in the same snapshot as the head (one statement) is one no append made.
  private async verifyChain(start: HistoryChain): Promise<{ checked: number; broken: HistoryBreak | null }> {
    const { brokerageId } = start;
    let chain = start;
    let expectedSeq = chain.anchorSeq + 1;
    let prevHash = chain.anchorHash;
    let checked = 0;
    const broken = (entry: HistoryEntry | null, seq: number, reason: string) => ({
      checked,
      broken: { brokerageId, id: entry?.id ?? null, seq, record: entry?.record ?? null, reason },
    });
    for (;;) {
      const page = await this.tx.exclusive((m) =>
        m
          .createQueryBuilder(HistoryEntry, 'h')
          .where('h.brokerageId = :brokerageId AND h.seq >= :from AND h.seq <= :head', {
            brokerageId,
            from: expectedSeq,
            head: chain.headSeq,
          })
          .orderBy('h.seq', 'ASC')
          .take(PAGE)
          .getMany(),
      );
      // Not the entry the walk expects (or none where the head says there are more): a prune may
      // have moved the anchor past it meanwhile.
      if (expectedSeq <= chain.headSeq && page[0]?.seq !== expectedSeq) {
        const now = await this.chainNow(brokerageId);
        if (now && now.anchorSeq >= expectedSeq) {
          chain = now;
          expectedSeq = now.anchorSeq + 1;
          prevHash = now.anchorHash;
          continue;
        }
      }
      for (const entry of page) {
        if (entry.seq !== expectedSeq)
          return broken(entry, entry.seq, `entry ${expectedSeq} of the chain is missing (removed)`);
        if (entry.prevHash !== prevHash)
          return broken(
            entry,
            entry.seq,
            'does not chain to the entry before it (one was removed or replaced)',
          );
        if (historyHash(entry) !== entry.hash)
          return broken(entry, entry.seq, 'its hash does not match its content (edited)');
        checked += 1;
        prevHash = entry.hash;
        expectedSeq += 1;
      }
      if (page.length === PAGE) continue;
      if (expectedSeq - 1 !== chain.headSeq || prevHash !== chain.headHash)
        return broken(
          null,
          chain.headSeq,
          `the chain ends at entry ${expectedSeq - 1} but its head is entry ${chain.headSeq} (the last entries were removed)`,
        );
      const now = await this.chainNow(brokerageId);
      if (now && now.headSeq > chain.headSeq) {
        chain = now;
        continue;
      }
      if (now && now.lastSeq !== null && now.lastSeq > now.headSeq) {
        const extra = await this.tx.exclusive((m) =>
          m.findOne(HistoryEntry, { where: { brokerageId, seq: now.headSeq + 1 } }),
        );
        return broken(
          extra,
          now.headSeq + 1,
          `an entry past the chain's head (entry ${now.headSeq}) that no append made (added by hand)`,
        );
      }
      return { checked, broken: null };
    }
  }

  // The chain row and its last entry's seq in one statement, so one snapshot on either engine.
  private async chainNow(brokerageId: string): Promise<(HistoryChain & { lastSeq: number | null }) | null> {
    const row = await this.tx.exclusive((m) =>
      m
        .createQueryBuilder(HistoryChain, 'c')
        .addSelect(
          (sub) => sub.select('MAX(h.seq)').from(HistoryEntry, 'h').where('h.brokerage_id = c.brokerage_id'),
          'last_seq',
        )
        .where('c.brokerageId = :brokerageId', { brokerageId })
        .getRawAndEntities(),
    );
    const [chain] = row.entities;
    if (!chain) return null;
    const last = (row.raw[0] as { last_seq?: number | string | null } | undefined)?.last_seq;
    return Object.assign(chain, { lastSeq: last === null || last === undefined ? null : Number(last) });
  }
}
