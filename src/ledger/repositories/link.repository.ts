import { EntityManager, In, LessThan, Like, MoreThanOrEqual } from 'typeorm';
import { Clock } from '../../common/clock';
import { Link } from '../entities';
import { LedgerTransactions } from '../ledger-transactions';
import { chunk, MAX_IDS_PER_QUERY } from '../ledger-sql';
import { classifyLink, isSame, type LinkClass, type LinkVersion } from './link-order';
import { writeLinkRows } from './link-upsert.sql';
import type { HistoryRepository, NewHistoryEntry } from './history.repository';

export type { LinkClass } from './link-order';
export type LinkOutcome = 'created' | 'changed' | 'unchanged';

export interface LinkInput {
  remoteId: string;
  crmId: string;
  contentHash: string;
  runId?: number;
  // When the written data was read from the remote (see Link.readAt); kept on the link.
  readAt?: Date;
}

interface LinkSnapshot extends LinkVersion {
  remoteId: string;
}

// Remote record <-> CRM record, with the hash of what was last written (unchanged => no write).
export class LinkRepository {
  constructor(
    private readonly tx: LedgerTransactions,
    private readonly clock: Clock,
    private readonly history?: HistoryRepository,
  ) {}

  find(brokerageId: string, kind: string, remoteId: string): Promise<Link | null> {
    return this.tx.exclusive((m) => m.findOne(Link, { where: { brokerageId, kind, remoteId } }));
  }

  findByCrmId(brokerageId: string, kind: string, crmId: string): Promise<Link | null> {
    return this.tx.exclusive((m) => m.findOne(Link, { where: { brokerageId, kind, crmId } }));
  }

  // The links of a kind to this CRM record, or from this remote one, in every brokerage unless one is
  // named: what the operator's `history --record` finds a record's other names by.
  findInAny(
    kind: string,
    match: { crmId: string } | { remoteId: string },
    brokerageId?: string,
  ): Promise<Link[]> {
    return this.tx.exclusive((m) =>
      m.find(Link, {
        where: { kind, ...match, ...(brokerageId ? { brokerageId } : {}) },
        order: { id: 'ASC' },
      }),
    );
  }

  // The links of these remote records that exist, by remote id, in one read per chunk of ids.
  findMany(
    brokerageId: string,
    kind: string,
    remoteIds: readonly string[],
  ): Promise<Map<string, Pick<Link, 'remoteId' | 'crmId' | 'contentHash'>>> {
    return this.tx.exclusive((m) => this.snapshots(m, brokerageId, kind, remoteIds));
  }

  // Links whose content holds a fragment (content that is JSON, such as a counter's).
  findByContent(brokerageId: string, kind: string, fragment: string): Promise<Link[]> {
    return this.tx.exclusive((m) =>
      m.find(Link, { where: { brokerageId, kind, contentHash: Like(`%${fragment}%`) } }),
    );
  }

  // The latest `limit` links (by when each was first written) whose content holds a fragment.
  latestByContent(brokerageId: string, kind: string, fragment: string, limit: number): Promise<Link[]> {
    return this.tx.exclusive((m) =>
      m.find(Link, {
        where: { brokerageId, kind, contentHash: Like(`%${fragment}%`) },
        order: { id: 'DESC' },
        take: limit,
      }),
    );
  }

  countByContent(brokerageId: string, kind: string, fragment: string): Promise<number> {
    return this.tx.exclusive((m) =>
      m.count(Link, { where: { brokerageId, kind, contentHash: Like(`%${fragment}%`) } }),
    );
  }

  // Of these links, those written before the latest link whose content holds `fragment` (links
  // keep their first row, so their ids are in the order they were first written).
  async writtenBeforeContent(
    brokerageId: string,
    kind: string,
    remoteIds: readonly string[],
    fragment: string,
  ): Promise<Set<string>> {
    if (remoteIds.length === 0) return new Set();
    return this.tx.exclusive(async (m) => {
      const latest = await m
        .createQueryBuilder(Link, 'l')
        .select('MAX(l.id)', 'latest')
        .where('l.brokerageId = :brokerageId AND l.kind = :kind', { brokerageId, kind })
        .andWhere('l.contentHash LIKE :fragment', { fragment: `%${fragment}%` })
        .getRawOne<{ latest: number | string | null }>();
      if (latest?.latest === null || latest?.latest === undefined) return new Set<string>();
      const before = new Set<string>();
      for (const ids of chunk([...new Set(remoteIds)], MAX_IDS_PER_QUERY)) {
        const rows = await m.find(Link, {
          select: { remoteId: true },
          where: { brokerageId, kind, remoteId: In(ids), id: LessThan(Number(latest.latest)) },
        });
        for (const row of rows) before.add(row.remoteId);
      }
      return before;
    });
  }

  // Read-only: what an upsert of these items would do. A link marked gone that shows up again counts
  // as changed (it has to be written back). An item read before the data its link vouches for is
  // `stale` (link-order.ts): not to be written. Valid for as long as the caller holds the records'
  // turn (LedgerTurns), which every writer of the kind takes.
  async classify(
    brokerageId: string,
    kind: string,
    items: readonly { remoteId: string; contentHash: string; readAt?: Date }[],
  ): Promise<Map<string, LinkClass>> {
    const existing = await this.tx.exclusive((m) =>
      this.snapshots(
        m,
        brokerageId,
        kind,
        items.map((i) => i.remoteId),
      ),
    );
    const now = this.clock.now();
    const classes = new Map<string, LinkClass>();
    for (const item of items)
      classes.set(item.remoteId, classifyLink(existing.get(item.remoteId), item, now));
    return classes;
  }

  // One transaction per batch: one read of the batch's links, one multi-row upsert of the new and
  // changed ones, a touch of the unchanged ones' last-seen run, and `record`: the decision-history
  // entries telling what the written records now show, which exist exactly when their links do.
  async upsertLinks(
    brokerageId: string,
    kind: string,
    items: readonly LinkInput[],
    record: NewHistoryEntry[] = [],
  ): Promise<{ remoteId: string; outcome: LinkOutcome }[]> {
    const unique = [...new Map(items.map((item) => [item.remoteId, item])).values()];
    if (unique.length === 0) {
      if (record.length > 0) await this.history?.append(record);
      return [];
    }
    return this.tx.run(async (m) => {
      const existing = await this.snapshots(
        m,
        brokerageId,
        kind,
        unique.map((i) => i.remoteId),
      );
      const outcomes = new Map<string, LinkOutcome>();
      const toWrite: LinkInput[] = [];
      const touched: LinkInput[] = [];
      for (const item of unique) {
        const link = existing.get(item.remoteId);
        const outcome: LinkOutcome = !link ? 'created' : isSame(link, item) ? 'unchanged' : 'changed';
        outcomes.set(item.remoteId, outcome);
        if (outcome !== 'unchanged') toWrite.push(item);
        else if (item.runId !== undefined) touched.push(item);
      }
      await writeLinkRows(m, brokerageId, kind, toWrite, this.clock.now()).catch((error: unknown) => {
        throw new Error(
          `could not save ${kind} links of brokerage ${brokerageId}: a CRM id in this batch is probably linked ` +
            `to another remote record already (${error instanceof Error ? error.message : String(error)})`,
        );
      });
      await this.touchRuns(m, brokerageId, kind, touched);
      if (record.length > 0) await this.history?.append(record, m);
      return items.map((item) => ({ remoteId: item.remoteId, outcome: outcomes.get(item.remoteId)! }));
    });
  }

  // Compare-and-set of one link's content: false when another writer changed it since `from` was
  // read (a buyer's answer landing between a read and a write), so nothing newer is overwritten.
  async replaceContent(
    brokerageId: string,
    kind: string,
    remoteId: string,
    from: string,
    to: string,
  ): Promise<boolean> {
    const result = await this.tx.run((m) =>
      m.update(
        Link,
        { brokerageId, kind, remoteId, contentHash: from },
        { contentHash: to, updatedAt: this.clock.now() },
      ),
    );
    return (result.affected ?? 0) > 0;
  }

  // Before the first CRM write of these records: links to a placeholder CRM id (`crmId`, unique per
  // record), vouching for nothing, so a create whose answer is lost (a kill, an error after the write
  // landed) leaves the ledger a link to look the record up by, instead of no trace of it. An existing
  // link is left as it is. The write's own upsertLinks replaces the placeholder.
  async linkBeforeCreate(
    brokerageId: string,
    kind: string,
    items: readonly { remoteId: string; crmId: string; runId?: number }[],
  ): Promise<void> {
    await this.insertMissing(
      brokerageId,
      kind,
      items.map((i) => ({ ...i, contentHash: UNVOUCHED })),
    );
  }

  // Links written only where the ledger has none for the remote record, active or gone: what was
  // written first is kept, and one already settled is not brought back.
  async insertMissing(brokerageId: string, kind: string, items: readonly LinkInput[]): Promise<void> {
    if (items.length === 0) return;
    await this.tx.run((m) =>
      writeLinkRows(m, brokerageId, kind, items, this.clock.now(), { keepExisting: true }),
    );
  }

  // Before a CRM write of these records: their links stop vouching for what the CRM shows, until the
  // write's own upsertLinks. A writer killed between its CRM write and that upsert would otherwise
  // leave the ledger saying "written" over a record that shows something else, and no later pass
  // would look at it again. With `readAt`, the links take the writer's read time now: the CRM may
  // show data that new from here on, so a writer holding older data, whose turn comes after a kill,
  // does not write it over (the next writer with newer data writes the record again).
  async forgetContent(
    brokerageId: string,
    kind: string,
    remoteIds: readonly string[],
    readAt?: Date,
  ): Promise<void> {
    if (remoteIds.length === 0) return;
    await this.tx.run(async (m) => {
      for (const ids of chunk(remoteIds, MAX_IDS_PER_QUERY))
        await m.update(Link, { brokerageId, kind, remoteId: In(ids) }, { contentHash: UNVOUCHED });
      if (readAt) await this.raiseReadAt(m, brokerageId, kind, remoteIds, readAt);
    });
  }

  // Before records that a closer may have closed are written again (the marketplace's listings): their
  // links vouch for nothing and count as open and seen by run `runId`, so a write whose answer is lost
  // leaves links the next complete pass writes again or closes, whatever they said before. A link
  // left `gone` over a reopening write that landed unanswered would be passed over by the closer, and
  // the record kept open for good once the listing left again.
  async reopenUnvouched(
    brokerageId: string,
    kind: string,
    remoteIds: readonly string[],
    runId: number,
  ): Promise<void> {
    if (remoteIds.length === 0) return;
    await this.tx.run(async (m) => {
      for (const ids of chunk(remoteIds, MAX_IDS_PER_QUERY))
        await m.update(
          Link,
          { brokerageId, kind, remoteId: In(ids) },
          { contentHash: UNVOUCHED, state: 'active', lastSeenRunId: runId, updatedAt: this.clock.now() },
        );
    });
  }

  // Records found unchanged by data read at `readAt`: the data they show is at least that new, so a
  // writer holding data read earlier (and different, say from between two equal reads) is held back.
  async noteRead(
    brokerageId: string,
    kind: string,
    remoteIds: readonly string[],
    readAt: Date,
  ): Promise<void> {
    if (remoteIds.length === 0) return;
    await this.tx.run((m) => this.raiseReadAt(m, brokerageId, kind, remoteIds, readAt));
  }

  async markSeen(
    brokerageId: string,
    kind: string,
    remoteIds: readonly string[],
    runId: number,
  ): Promise<number> {
    if (remoteIds.length === 0) return 0;
    return this.tx.run(async (m) => {
      let changed = 0;
      for (const ids of chunk(remoteIds, MAX_IDS_PER_QUERY)) {
        const result = await m.update(
          Link,
          { brokerageId, kind, remoteId: In(ids) },
          { lastSeenRunId: runId },
        );
        changed += result.affected ?? 0;
      }
      return changed;
    });
  }

  // Remote records of this kind still open on the CRM side (not gone).
  countActive(brokerageId: string, kind: string): Promise<number> {
    return this.tx.exclusive((m) => m.count(Link, { where: { brokerageId, kind, state: 'active' } }));
  }

  // Links of one kind made at or after `since`, oldest first (the broker's numbers read these).
  listCreatedSince(brokerageId: string, kind: string, since: Date): Promise<Link[]> {
    return this.tx.exclusive((m) =>
      m.find(Link, { where: { brokerageId, kind, createdAt: MoreThanOrEqual(since) }, order: { id: 'ASC' } }),
    );
  }

  listAll(brokerageId: string, kind: string): Promise<Link[]> {
    return this.tx.exclusive((m) => m.find(Link, { where: { brokerageId, kind }, order: { id: 'ASC' } }));
  }

  listActive(brokerageId: string, kind: string): Promise<Link[]> {
    return this.tx.exclusive((m) =>
      m.find(Link, { where: { brokerageId, kind, state: 'active' }, order: { id: 'ASC' } }),
    );
  }

  // Active links the run did not see: candidates for closing, valid only after a complete scan.
  listNotSeenIn(brokerageId: string, kind: string, runId: number): Promise<Link[]> {
    return this.tx.exclusive((m) =>
      m
        .createQueryBuilder(Link, 'l')
        .where('l.brokerageId = :brokerageId AND l.kind = :kind AND l.state = :active', {
          brokerageId,
          kind,
          active: 'active',
        })
        .andWhere('(l.lastSeenRunId IS NULL OR l.lastSeenRunId <> :runId)', { runId })
        .orderBy('l.id')
        .getMany(),
    );
  }

  // `record`: the decision-history entries of what the records of these links were last shown as,
  // appended in the same transaction (as upsertLinks's).
  async markGone(
    brokerageId: string,
    kind: string,
    remoteIds: readonly string[],
    record: NewHistoryEntry[] = [],
  ): Promise<number> {
    if (remoteIds.length === 0) return 0;
    return this.tx.run(async (m) => {
      let changed = 0;
      for (const ids of chunk(remoteIds, MAX_IDS_PER_QUERY)) {
        const result = await m.update(
          Link,
          { brokerageId, kind, remoteId: In(ids), state: 'active' },
          { state: 'gone', updatedAt: this.clock.now() },
        );
        changed += result.affected ?? 0;
      }
      if (record.length > 0) await this.history?.append(record, m);
      return changed;
    });
  }

  private async snapshots(
    m: EntityManager,
    brokerageId: string,
    kind: string,
    remoteIds: readonly string[],
  ): Promise<Map<string, LinkSnapshot>> {
    const found = new Map<string, LinkSnapshot>();
    // Raw rows, for speed: the read time is turned into a Date as the entity would have it.
    const driver = m.connection.driver;
    const readAtColumn = m.connection.getMetadata(Link).findColumnWithPropertyName('readAt')!;
    for (const ids of chunk([...new Set(remoteIds)], MAX_IDS_PER_QUERY)) {
      const rows = await m
        .createQueryBuilder(Link, 'l')
        .select(['l.remoteId', 'l.crmId', 'l.contentHash', 'l.state', 'l.readAt'])
        .where('l.brokerageId = :brokerageId AND l.kind = :kind', { brokerageId, kind })
        .andWhere('l.remoteId IN (:...ids)', { ids })
        .getRawMany<{
          l_remote_id: string;
          l_crm_id: string;
          l_content_hash: string;
          l_state: string;
          l_read_at: unknown;
        }>();
      for (const row of rows) {
        found.set(row.l_remote_id, {
          remoteId: row.l_remote_id,
          crmId: row.l_crm_id,
          contentHash: row.l_content_hash,
          state: row.l_state,
          readAt:
            row.l_read_at === null
              ? null
              : (driver.prepareHydratedValue(row.l_read_at, readAtColumn) as Date),
        });
      }
    }
    return found;
  }

  // Read times only move forward, except one later than now, which is not trusted (link-order.ts).
  private async raiseReadAt(
    m: EntityManager,
    brokerageId: string,
    kind: string,
    remoteIds: readonly string[],
    readAt: Date,
  ): Promise<void> {
    for (const ids of chunk(remoteIds, MAX_IDS_PER_QUERY))
      await m
        .createQueryBuilder()
        .update(Link)
        .set({ readAt })
        .where('brokerage_id = :brokerageId AND kind = :kind AND remote_id IN (:...ids)', {
          brokerageId,
          kind,
          ids,
        })
        .andWhere('(read_at IS NULL OR read_at < :readAt OR read_at > :now)', {
          readAt,
          now: this.clock.now(),
        })
        .execute();
  }

  private async touchRuns(
    m: EntityManager,
    brokerageId: string,
    kind: string,
    items: LinkInput[],
  ): Promise<void> {
    const byRun = new Map<number, string[]>();
    for (const item of items) byRun.set(item.runId!, [...(byRun.get(item.runId!) ?? []), item.remoteId]);
    for (const [runId, remoteIds] of byRun) {
      for (const ids of chunk(remoteIds, MAX_IDS_PER_QUERY)) {
        await m.update(Link, { brokerageId, kind, remoteId: In(ids) }, { lastSeenRunId: runId });
      }
    }
  }
}

// A content hash no content has: the next write of the record is never skipped as unchanged.
const UNVOUCHED = '';
