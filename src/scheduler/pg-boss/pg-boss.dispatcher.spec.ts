import type PgBoss from 'pg-boss';
import { waitFor } from '../../../test/support/wait-for';
import { PgBossDispatcher } from './pg-boss.dispatcher';
import type { SyncJobData } from './pg-boss.queues';

// pg-boss as the dispatcher sees it: queues with jobs waiting, ranked as the ready-queues query
// ranks them (a queue with a job active left out; brokerages with nothing active first, then the
// oldest job), fetch taking one (and calling `onFetch`, to let something happen meanwhile),
// complete and fail recorded.
class FakeBoss {
  readonly waiting = new Map<string, { data: SyncJobData; seq: number; priority: number }[]>();
  readonly fetched: string[] = [];
  readonly completed: string[] = [];
  readonly active = new Map<string, string>();
  onFetch: (() => void) | undefined;
  private next = 0;

  queue(name: string, brokerageId: string, count = 1): void {
    const jobs = Array.from({ length: count }, () => {
      this.queuedAt.push(Date.now());
      return { data: { brokerageId, job: 'outbox-drain' as const }, seq: this.next++, priority: 0 };
    });
    this.waiting.set(name, [...(this.waiting.get(name) ?? []), ...jobs]);
  }

  // A stately queue: one job waiting at most.
  async send(name: string, data: SyncJobData, options: { priority?: number }): Promise<string | null> {
    if ((this.waiting.get(name) ?? []).length > 0) return null;
    this.queuedAt.push(Date.now());
    this.waiting.set(name, [{ data, seq: this.next++, priority: options.priority ?? 0 }]);
    return `${name}#sent`;
  }

  getDb() {
    return {
      executeSql: async (sql: string, params: unknown[]) => {
        if (sql.includes('UPDATE')) {
          const [name, priority] = params as [string, number];
          for (const job of this.waiting.get(name) ?? []) job.priority = Math.max(job.priority, priority);
          return { rows: [] };
        }
        const [limit, names, endedJson] = params as [number, string[], string];
        // A job waits from its queue's last run's end on this worker when that is later (seq: job order).
        const ended = JSON.parse(endedJson) as Record<string, number>;
        const waitsFrom = (name: string, seq: number) =>
          Math.max(seq, ended[name] === undefined ? -1 : this.seqAt(ended[name]) + 0.5);
        const busy = new Set(this.active.values());
        return {
          rows: [...this.waiting.entries()]
            .filter(([name, jobs]) => jobs.length > 0 && names.includes(name) && !this.active.has(name))
            .map(([name, jobs]) => ({ name, brokerage_id: jobs[0].data.brokerageId, ...jobs[0] }))
            .sort(
              (a, b) =>
                Number(busy.has(a.brokerage_id)) - Number(busy.has(b.brokerage_id)) ||
                b.priority - a.priority ||
                waitsFrom(a.name, a.seq) - waitsFrom(b.name, b.seq),
            )
            .slice(0, limit)
            .map(({ name, brokerage_id }) => ({ name, brokerage_id })),
        };
      },
    };
  }

  async fetch(name: string): Promise<PgBoss.Job<SyncJobData>[]> {
    const job = this.waiting.get(name)?.shift();
    if (!job) return [];
    this.fetched.push(name);
    this.active.set(name, job.data.brokerageId);
    const onFetch = this.onFetch;
    this.onFetch = undefined;
    onFetch?.();
    await new Promise((resolve) => setImmediate(resolve));
    return [{ id: `${name}#${job.seq}`, name, data: job.data, expireInSeconds: 60 }];
  }

  // Jobs are ordered by seq; a time maps to the seq of the last job queued by then.
  private readonly queuedAt: number[] = [];
  seqAt(ms: number): number {
    return this.queuedAt.filter((t) => t <= ms).length - 1;
  }

  async complete(name: string): Promise<void> {
    this.active.delete(name);
    this.completed.push(name);
  }

  async fail(name: string): Promise<void> {
    this.active.delete(name);
  }
}

const until = (probe: () => boolean, what: string) => waitFor(probe, { what });

describe('PgBossDispatcher', () => {
  let boss: FakeBoss;
  let running: { data: SyncJobData; finish: () => void }[];
  let dispatcher: PgBossDispatcher;
  const start = (capacity: number, queues: string[]) => {
    dispatcher = new PgBossDispatcher(boss as unknown as PgBoss, capacity, (data) => {
      return new Promise<void>((finish) => running.push({ data, finish }));
    });
    for (const q of queues) dispatcher.add(q);
    dispatcher.start();
  };
  beforeEach(() => {
    boss = new FakeBoss();
    running = [];
  });
  afterEach(async () => {
    const stopped = dispatcher.stop();
    for (const r of running) r.finish();
    await stopped;
  });

  it('takes jobs only while it has a free slot, one per brokerage first, and refills a freed slot at once', async () => {
    boss.queue('sync__crm-changes__b1', 'b1');
    boss.queue('sync__outbox-drain__b1', 'b1');
    boss.queue('sync__outbox-drain__b2', 'b2');
    boss.queue('sync__outbox-drain__b3', 'b3');
    start(2, [...boss.waiting.keys()]);

    await until(() => running.length === 2, 'two runs');
    // b1's second job waits while b2 has none running; nothing more is taken while full.
    expect(running.map((r) => r.data.brokerageId)).toEqual(['b1', 'b2']);
    expect(boss.fetched).toEqual(['sync__crm-changes__b1', 'sync__outbox-drain__b2']);

    running[0].finish();
    await until(() => running.length === 3, 'the freed slot to be filled');
    expect(boss.completed).toEqual(['sync__crm-changes__b1']);
    expect(boss.fetched).toHaveLength(3);
  });

  it('fills a slot freed while it was fetching by ranking again, not from the ranking made before', async () => {
    boss.queue('sync__crm-changes__b1', 'b1');
    boss.queue('sync__crm-changes__b2', 'b2');
    start(2, ['sync__crm-changes__b1', 'sync__crm-changes__b2']);
    await until(() => running.length === 2, 'two runs');
    // b1's drain waits behind its crm-changes; b3 and b4 have not started.
    boss.queue('sync__outbox-drain__b1', 'b1');
    boss.queue('sync__crm-changes__b3', 'b3');
    boss.queue('sync__crm-changes__b4', 'b4');
    for (const q of ['sync__outbox-drain__b1', 'sync__crm-changes__b3', 'sync__crm-changes__b4'])
      dispatcher.add(q);
    // b2 ends: one slot, ranked b3, b4, then b1 (busy). While b3 is being fetched, b1 ends too.
    boss.onFetch = () => running[0].finish();
    running[1].finish();
    await until(() => running.length === 4, 'both slots filled');
    // b1, no longer busy, has the oldest job: its drain takes the second slot, not b4.
    expect(boss.fetched.slice(2)).toEqual(['sync__crm-changes__b3', 'sync__outbox-drain__b1']);
  });

  it('takes known work (a drain a run asked for) before an older routine tick, raising a waiting tick', async () => {
    boss.queue('sync__crm-changes__b1', 'b1');
    start(1, ['sync__crm-changes__b1']);
    await until(() => running.length === 1, 'one run');
    for (const q of ['sync__crm-changes__b2', 'sync__outbox-drain__b3', 'sync__outbox-drain__b4']) {
      boss.queue(q, q.slice(-2));
      dispatcher.add(q);
    }
    // b3's drain was queued by a tick already: asked for as known work, that job is raised.
    expect(
      await dispatcher.sendKnownWork('sync__outbox-drain__b3', { brokerageId: 'b3', job: 'outbox-drain' }),
    ).toBe(false);
    running[0].finish();
    await until(() => running.length === 2, 'the next run');
    expect(boss.fetched[1]).toBe('sync__outbox-drain__b3');
    running[1].finish();
    await until(() => running.length === 3, 'the one after');
    expect(boss.fetched[2]).toBe('sync__crm-changes__b2');
  });

  it("ranks a tick queued during the pair's run on this worker from that run's end", async () => {
    boss.queue('sync__crm-changes__b1', 'b1');
    start(1, ['sync__crm-changes__b1']);
    await until(() => running.length === 1, 'one run');
    // The next tick queues b1's poll while b1's run goes on, then b2's first poll.
    boss.queue('sync__crm-changes__b1', 'b1');
    boss.queue('sync__crm-changes__b2', 'b2');
    dispatcher.add('sync__crm-changes__b2');
    running[0].finish();
    await until(() => running.length === 2, 'the next run');
    // b2 has waited longer than b1's follow-up, which waits from b1's end.
    expect(boss.fetched[1]).toBe('sync__crm-changes__b2');
  });

  it('leaves queues it does not work to other workers', async () => {
    boss.queue('sync__marketplace__elsewhere', 'elsewhere');
    boss.queue('sync__marketplace__b1', 'b1');
    start(4, ['sync__marketplace__b1']);
    await until(() => running.length === 1, 'one run');
    expect(boss.fetched).toEqual(['sync__marketplace__b1']);
    expect(boss.waiting.get('sync__marketplace__elsewhere')).toHaveLength(1);
  });
});
