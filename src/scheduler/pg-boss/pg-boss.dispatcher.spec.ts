import type PgBoss from 'pg-boss';
import { PgBossDispatcher } from './pg-boss.dispatcher';
import type { SyncJobData } from './pg-boss.queues';

// pg-boss as the dispatcher sees it: queues with jobs waiting (in the order the ready-queues query
// would give them), fetch taking one, complete and fail recorded.
class FakeBoss {
  readonly waiting = new Map<string, SyncJobData[]>();
  readonly fetched: string[] = [];
  readonly completed: string[] = [];
  private next = 0;

  queue(name: string, brokerageId: string, count = 1): void {
    const jobs = Array.from({ length: count }, () => ({ brokerageId, job: 'outbox-drain' as const }));
    this.waiting.set(name, [...(this.waiting.get(name) ?? []), ...jobs]);
  }

  getDb() {
    return {
      executeSql: async (_sql: string, [limit, names]: [number, string[]]) => ({
        rows: [...this.waiting.entries()]
          .filter(([name, jobs]) => jobs.length > 0 && names.includes(name))
          .slice(0, limit)
          .map(([name, jobs]) => ({ name, brokerage_id: jobs[0].brokerageId })),
      }),
    };
  }

  async fetch(name: string): Promise<PgBoss.Job<SyncJobData>[]> {
    const data = this.waiting.get(name)?.shift();
    if (!data) return [];
    this.fetched.push(name);
    return [{ id: `${name}#${this.next++}`, name, data, expireInSeconds: 60 }];
  }

  async complete(name: string): Promise<void> {
    this.completed.push(name);
  }

  async fail(): Promise<void> {}
}

async function until(probe: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

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

  it('leaves queues it does not work to other workers', async () => {
    boss.queue('sync__marketplace__elsewhere', 'elsewhere');
    boss.queue('sync__marketplace__b1', 'b1');
    start(4, ['sync__marketplace__b1']);
    await until(() => running.length === 1, 'one run');
    expect(boss.fetched).toEqual(['sync__marketplace__b1']);
    expect(boss.waiting.get('sync__marketplace__elsewhere')).toHaveLength(1);
  });
});
