import type PgBoss from 'pg-boss';
import { Client } from 'pg';
import { jobKey } from '../../../src/scheduler/job-key';
import { createPgBoss } from '../../../src/scheduler/pg-boss/pg-boss.engine';
import { syncQueueOptions, type SyncJobData } from '../../../src/scheduler/pg-boss/pg-boss.queues';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../../support/postgres-database';
import {
  baseEnv,
  brokerageConfig,
  makeWorkspace,
  runCli,
  writeBrokerage,
  type Workspace,
} from '../daemon/daemon.fixtures';

jest.setTimeout(120_000);

async function query<T extends object>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

// `sync --once` beside workers on one PostgreSQL ledger: it takes the (brokerage, job) singleton
// the workers take, so it is refused while one of them holds it and runs once it is free.
describe('sync --once on a PostgreSQL ledger', () => {
  let ws: Workspace;
  let db: TestPostgresDatabase;
  let boss: PgBoss | undefined;
  beforeEach(async () => {
    ws = makeWorkspace();
    db = await createTestPostgresDatabase('once');
  });
  afterEach(async () => {
    await boss?.stop({ graceful: false, wait: true });
    boss = undefined;
    await db.drop();
    ws.cleanup();
  });

  it('is refused while a worker holds the job, and runs through the singleton once it is free', async () => {
    writeBrokerage(ws, brokerageConfig('alpha'));
    const env = { ...baseEnv(ws, 0, ['alpha']), LEDGER_URL: db.url };
    const args = ['sync', '--once', '--brokerage', 'alpha', '--job', 'inbox-drain', '--json'];
    const name = jobKey('alpha', 'inbox-drain');

    // A worker's run of alpha's inbox-drain, as pg-boss hands it to a worker.
    boss = await createPgBoss({ ledgerUrl: db.url, jobLeaseSeconds: 60 }, 'one-off');
    await boss.start();
    await boss.createQueue(name, syncQueueOptions(name, 60));
    await boss.send(name, { brokerageId: 'alpha', job: 'inbox-drain' } satisfies SyncJobData);
    const [held] = await boss.fetch<SyncJobData>(name, { batchSize: 1 });
    expect(held).toBeDefined();

    const refused = await runCli(args, env);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ status: 'skipped', runId: null });
    expect(refused.stdout).toMatch(/a worker is running inbox-drain for alpha now/);
    expect(await query(db.url, 'SELECT id FROM runs')).toEqual([]);

    // The worker finishes; now the command takes the singleton itself and runs.
    await boss.complete(name, held.id);
    const ran = await runCli(args, env);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const outcome = JSON.parse(ran.stdout) as { status: string; runId: number };
    expect(outcome.status).toBe('succeeded');
    const runs = await query<{ id: number; brokerage_id: string; job: string; status: string }>(
      db.url,
      'SELECT id, brokerage_id, job, status FROM runs',
    );
    expect(runs).toEqual([
      { id: outcome.runId, brokerage_id: 'alpha', job: 'inbox-drain', status: 'succeeded' },
    ]);
    // ...and it let go of the singleton: nothing of the pair is left active for the workers to wait
    // on (the run the refused command queued was the one it took).
    expect(await boss.getQueueSize(name, { before: 'completed' })).toBe(0);
  });
});
