import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import type { BrokerageCrms } from '../../brokerages/brokerage-crms';
import type { CrmChangePage, CrmCursor, CrmRecord, ReadChangesOptions } from '../../crm';
import type { CursorRepository } from '../../ledger';
import type { JobContext } from '../../scheduler/job.types';
import type { ConsumedPage } from './change-pages.consumer';
import type { ChangeStream } from './change-stream';
import type { ChangeConsumer } from './crm-change-consumer.decorator';
import { SharedChangeReads } from './shared-change.reads';

const minute = (m: number) => `2026-01-01T00:${String(m).padStart(2, '0')}:00.000Z`;
const deal = (id: string, m: number, pipelineId = 'listings'): CrmRecord => ({
  id,
  kind: 'deal',
  updatedAt: minute(m),
  pipelineId,
  properties: {},
});
const cursorOf = (r: CrmRecord): CrmCursor => ({ updatedAt: r.updatedAt, id: r.id });
const pageOf = (...records: CrmRecord[]): CrmChangePage => ({ records, cursor: cursorOf(records.at(-1)!) });

// Hands back the same pages whatever it is asked, and remembers what it was asked.
class ScriptedPort {
  readonly reads: ReadChangesOptions[] = [];
  readonly changeOverlapMs = 60_000;
  constructor(private readonly pages: Record<string, CrmChangePage[]>) {}

  async *readChanges(options: ReadChangesOptions): AsyncIterable<CrmChangePage> {
    this.reads.push(options);
    for (const page of this.pages[options.kind] ?? []) yield await Promise.resolve(page);
  }
}

class MemoryCursors {
  readonly saved = new Map<string, string>();
  readonly commits: string[] = [];
  get(_brokerage: string, stream: string): Promise<string | null> {
    return Promise.resolve(this.saved.get(stream) ?? null);
  }
  commitPage(_brokerage: string, stream: string, cursor: string): Promise<void> {
    this.saved.set(stream, cursor);
    this.commits.push(`${stream}@${(JSON.parse(cursor) as CrmCursor).id}`);
    return Promise.resolve();
  }
}

class RecordingConsumer implements ChangeConsumer {
  readonly pages: string[][] = [];
  constructor(
    private readonly spec: ChangeStream,
    private readonly failOnPage?: number,
  ) {}
  stream(): ChangeStream {
    return this.spec;
  }
  consumePage({ records, counts }: ConsumedPage): Promise<void> {
    this.pages.push(records.map((r) => r.id));
    if (this.pages.length === this.failOnPage) return Promise.reject(new Error('service unavailable'));
    counts.read += records.length;
    return Promise.resolve();
  }
}

const ctx = (dryRun = false): JobContext =>
  ({
    brokerage: { id: 'acme' },
    runId: 1,
    signal: new AbortController().signal,
    dryRun,
    progress: () => undefined,
  }) as unknown as JobContext;

function setUp(pages: Record<string, CrmChangePage[]>) {
  const port = new ScriptedPort(pages);
  const cursors = new MemoryCursors();
  const crm = { brokerageId: 'acme', port } as unknown as BrokerageCrm;
  const crms = { get: () => Promise.resolve(crm) } as unknown as BrokerageCrms;
  const reads = new SharedChangeReads(crms, cursors as unknown as CursorRepository);
  return { port, cursors, reads };
}

const listings: ChangeStream = {
  stream: 'crm:deal:listings',
  kind: 'deal',
  properties: ['a'],
  filter: { pipelineId: 'listings' },
};
const offers: ChangeStream = {
  stream: 'crm:deal:offers',
  kind: 'deal',
  properties: ['b'],
  filter: { pipelineId: 'offers' },
};
const buyers: ChangeStream = { stream: 'crm:contact:buyers', kind: 'contact', properties: ['c'] };
const contact = (id: string, m: number): CrmRecord => ({
  ...deal(id, m),
  kind: 'contact',
  pipelineId: undefined,
});

describe('SharedChangeReads', () => {
  it('reads each kind once and gives each consumer what its filter admits, moving its own cursor', async () => {
    const { port, cursors, reads } = setUp({
      deal: [pageOf(deal('1', 1), deal('2', 2, 'offers')), pageOf(deal('3', 3, 'offers'))],
      contact: [pageOf(contact('7', 1))],
    });
    const a = new RecordingConsumer(listings);
    const b = new RecordingConsumer(offers);
    const c = new RecordingConsumer(buyers);
    const runs = await reads.run(ctx(), [
      { name: 'a', consumer: a },
      { name: 'b', consumer: b },
      { name: 'c', consumer: c },
    ]);
    expect(port.reads.map((r) => r.kind)).toEqual(['deal', 'contact']);
    expect(port.reads[0]).toEqual({ kind: 'deal', since: null, properties: ['a', 'b'] });
    expect(a.pages).toEqual([['1']]);
    expect(b.pages).toEqual([['2'], ['3']]);
    expect(c.pages).toEqual([['7']]);
    // A page with nothing for a consumer still moves its cursor: nothing there is wanted.
    expect(cursors.commits).toEqual([
      'crm:deal:listings@2',
      'crm:deal:offers@2',
      'crm:deal:listings@3',
      'crm:deal:offers@3',
      'crm:contact:buyers@7',
    ]);
    expect(runs.map((r) => [r.name, r.counts.read, r.failure])).toEqual([
      ['a', 1, undefined],
      ['b', 2, undefined],
      ['c', 1, undefined],
    ]);
  });

  it('a consumer that throws keeps its cursor and gets no more pages; the others go on', async () => {
    const { cursors, reads } = setUp({
      deal: [pageOf(deal('1', 1)), pageOf(deal('2', 2)), pageOf(deal('3', 3))],
    });
    const failing = new RecordingConsumer(listings, 2);
    const other = new RecordingConsumer({ ...listings, stream: 'crm:deal:other' });
    const runs = await reads.run(ctx(), [
      { name: 'failing', consumer: failing },
      { name: 'other', consumer: other },
    ]);
    expect(failing.pages).toEqual([['1'], ['2']]);
    expect(other.pages).toEqual([['1'], ['2'], ['3']]);
    expect(cursors.saved.get('crm:deal:listings')).toBe(JSON.stringify(cursorOf(deal('1', 1))));
    expect(cursors.saved.get('crm:deal:other')).toBe(JSON.stringify(cursorOf(deal('3', 3))));
    expect(runs[0].failure).toBe('service unavailable');
    expect(runs[1].failure).toBeUndefined();
  });

  it('reads from the oldest cursor; a consumer ahead gets only its own window and never moves back', async () => {
    const { port, cursors, reads } = setUp({
      deal: [pageOf(deal('1', 1), deal('2', 5)), pageOf(deal('3', 9), deal('4', 10)), pageOf(deal('5', 12))],
    });
    cursors.saved.set('crm:deal:listings', JSON.stringify(cursorOf(deal('1', 1))));
    cursors.saved.set('crm:deal:other', JSON.stringify(cursorOf(deal('4', 10))));
    const behind = new RecordingConsumer(listings);
    const ahead = new RecordingConsumer({ ...listings, stream: 'crm:deal:other' });
    await reads.run(ctx(), [
      { name: 'behind', consumer: behind },
      { name: 'ahead', consumer: ahead },
    ]);
    expect(port.reads[0].since).toEqual(cursorOf(deal('1', 1)));
    expect(behind.pages).toEqual([['1', '2'], ['3', '4'], ['5']]);
    // Its own read would start a minute (the overlap) before minute 10: deal 3 at minute 9 is in it.
    expect(ahead.pages).toEqual([['3', '4'], ['5']]);
    expect(cursors.commits).toEqual([
      'crm:deal:listings@2',
      'crm:deal:listings@4',
      'crm:deal:listings@5',
      'crm:deal:other@5',
    ]);
  });

  it('moves no cursor on a dry run', async () => {
    const { cursors, reads } = setUp({ deal: [pageOf(deal('1', 1)), pageOf(deal('2', 2))] });
    const consumer = new RecordingConsumer(listings);
    await reads.run(ctx(true), [{ name: 'a', consumer }]);
    expect(consumer.pages).toEqual([['1'], ['2']]);
    expect(cursors.commits).toEqual([]);
  });

  it('a consumer that cannot say what it reads fails alone', async () => {
    const { reads } = setUp({ deal: [pageOf(deal('1', 1))] });
    const broken: ChangeConsumer = {
      stream: () => {
        throw new Error(
          'stage "accept_requested" of pipeline "cash_offers" is not in the CRM; run setup-crm',
        );
      },
      consumePage: () => Promise.resolve(),
    };
    const fine = new RecordingConsumer(listings);
    const runs = await reads.run(ctx(), [
      { name: 'broken', consumer: broken },
      { name: 'fine', consumer: fine },
    ]);
    expect(runs[0].failure).toContain('run setup-crm');
    expect(fine.pages).toEqual([['1']]);
  });
});
