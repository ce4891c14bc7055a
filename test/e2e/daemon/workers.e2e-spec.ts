import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../../support/postgres-database';
import {
  DAEMON_WAIT,
  brokerageConfig,
  makeWorkspace,
  readEvents,
  startHarness,
  writeBrokerage,
  type HarnessEvent,
  type RunningProcess,
  type Workspace,
} from './daemon.fixtures';
import { waitFor } from '../../support/wait-for';

jest.setTimeout(180_000);

const BROKERAGES = ['alpha', 'beta', 'gamma', 'delta'];
const PAGES = 30; // 150 ms each: a marketplace run of ~4.5 s, cut short by a kill
const LEASE_SECONDS = 6;

interface RunRow {
  id: number;
  brokerage_id: string;
  job: string;
  status: string;
  started_at: Date;
  finished_at: Date | null;
}

async function runRows(url: string): Promise<RunRow[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<RunRow>('SELECT * FROM runs ORDER BY id');
    return result.rows;
  } finally {
    await client.end();
  }
}

const pagesDone = (events: HarnessEvent[], brokerageId: string): Set<number> =>
  new Set(events.filter((e) => e.type === 'page' && e.brokerageId === brokerageId).map((e) => e.page!));

// Three daemons (the real daemon shell from dist/, stand-in jobs) on one PostgreSQL ledger.
describe('several workers on one PostgreSQL ledger', () => {
  let ws: Workspace;
  let db: TestPostgresDatabase;
  let workers: RunningProcess[] = [];
  beforeEach(async () => {
    ws = makeWorkspace();
    db = await createTestPostgresDatabase('workers');
  });
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    workers = [];
    await db.drop();
    ws.cleanup();
  });

  it('runs each (brokerage, job) on one worker at a time and takes a killed worker’s run over', async () => {
    for (const id of BROKERAGES) {
      writeBrokerage(ws, brokerageConfig(id, { marketplace: '* * * * * *', outboxDrain: '*/2 * * * * *' }));
    }
    const gate = join(ws.dir, 'gate');
    const env = {
      LEDGER_URL: db.url,
      JOB_LEASE_SECONDS: String(LEASE_SECONDS),
      HARNESS_PAGES: String(PAGES),
      HARNESS_GATE: gate,
    };
    // One after the other: the first creates the schema, the others find it (both paths are taken
    // concurrently in production; the migration lock covers that, see the ledger's medium tests).
    for (let i = 0; i < 3; i++) workers.push((await startHarness(ws, BROKERAGES, env)).daemon);
    // The pages start once all three are up: on a busy machine the first would otherwise walk them
    // all before the others have started.
    writeFileSync(gate, '');
    const pids = workers.map((w) => w.child.pid!);

    // Kill the worker holding a marketplace run that has walked a few pages.
    const victim = await waitFor(
      () => {
        const events = readEvents(ws);
        const open = new Map<string, HarnessEvent>();
        for (const e of events.filter((e) => e.job === 'marketplace')) {
          if (e.type === 'start') open.set(e.brokerageId, e);
          else open.delete(e.brokerageId);
        }
        return [...open.values()].find((e) => pagesDone(events, e.brokerageId).size >= 3);
      },
      { what: 'a marketplace run in progress', ...DAEMON_WAIT, timeoutMs: 30_000 },
    );
    const killed = workers.find((w) => w.child.pid === victim.pid)!;
    killed.child.kill('SIGKILL');
    await killed.exited;
    const killedAt = Date.now();

    // Every brokerage's marketplace walks all its pages, the victim's resumed by another worker.
    await waitFor(() => BROKERAGES.every((id) => pagesDone(readEvents(ws), id).size === PAGES), {
      what: 'every brokerage to finish its marketplace pages',
      ...DAEMON_WAIT,
      // A takeover waits out the lease and the next pg-boss maintenance; slower on a busy machine.
      timeoutMs: 90_000,
    }).catch((error: unknown) => {
      // What each brokerage got to and what the workers said, to tell a slow takeover from none.
      const progress = BROKERAGES.map((id) => `${id} ${pagesDone(readEvents(ws), id).size}/${PAGES}`);
      const starts = readEvents(ws)
        .filter((e) => e.type !== 'page')
        .map((e) => `${e.at - killedAt} ${e.pid} ${e.brokerageId} ${e.job} ${e.type}`);
      const logs = workers.map(
        (w) => `worker ${w.child.pid}:\n${w.stdout().slice(-3000)}\n${w.stderr().slice(-2000)}`,
      );
      throw new Error(
        `${String(error)}; pages: ${progress.join(', ')}; victim ${victim.pid} ${victim.brokerageId}\n${starts.slice(-80).join('\n')}\n${logs.join('\n')}`,
      );
    });
    const events = readEvents(ws);
    const resumed = events.find(
      (e) =>
        e.type === 'start' &&
        e.job === 'marketplace' &&
        e.brokerageId === victim.brokerageId &&
        e.at > killedAt,
    );
    expect(resumed?.pid).not.toBe(victim.pid);
    // Not before the dead worker's lease ran out.
    expect(resumed!.at - victim.at).toBeGreaterThanOrEqual(LEASE_SECONDS * 1000 - 1000);
    // The work was spread over the workers.
    expect(new Set(events.filter((e) => e.type === 'start').map((e) => e.pid)).size).toBeGreaterThanOrEqual(
      2,
    );
    expect(pids).toContain(victim.pid);

    // From the run table: the killed run was closed as interrupted by the takeover, and no two runs
    // of one (brokerage, job) overlap in time.
    const rows = await runRows(db.url);
    const victimRun = rows.find((r) => r.id === victim.runId)!;
    expect(victimRun.status).toBe('interrupted');
    const byKey = new Map<string, RunRow[]>();
    for (const row of rows)
      byKey.set(`${row.brokerage_id}:${row.job}`, [
        ...(byKey.get(`${row.brokerage_id}:${row.job}`) ?? []),
        row,
      ]);
    for (const [key, runs] of byKey) {
      const sorted = [...runs].sort((a, b) => a.started_at.getTime() - b.started_at.getTime());
      for (let i = 1; i < sorted.length; i++) {
        const previous = sorted[i - 1];
        const overlap =
          previous.finished_at === null || previous.finished_at.getTime() > sorted[i].started_at.getTime();
        expect(
          overlap ? `${key}: run ${sorted[i].id} started while run ${previous.id} was running` : 'ok',
        ).toBe('ok');
      }
    }

    // The survivors stop cleanly on SIGTERM.
    const survivors = workers.filter((w) => w !== killed);
    for (const w of survivors) w.child.kill('SIGTERM');
    for (const w of survivors) expect((await w.exited).code).toBe(0);
  });
});
