import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { DEAL } from '../../../src/sync/common/listing-deal.properties';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../../support/postgres-database';
import { waitFor } from '../../support/wait-for';
import { DAEMON_MAIN_JS, expectBuiltDaemon, openRun } from '../../support/worker-process';
import { WorkerWorld } from '../../support/worker-world';

jest.setTimeout(240_000);

const CLI_JS = join(DAEMON_MAIN_JS, '..', 'cli.js');
const REQUEST_ID = DEAL.requestId;

function cli(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [CLI_JS, ...args], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

async function outboxStates(url: string): Promise<Record<string, number>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ state: string; n: string }>(
      'SELECT state, COUNT(*) AS n FROM outbox_commands GROUP BY state',
    );
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  } finally {
    await client.end();
  }
}

// A daemon on SQLite syncs two brokerages and is killed inside a create call; its ledger is moved to
// PostgreSQL with `migrate-ledger`, and a daemon on PostgreSQL carries on from there.
describe('migrate-ledger: from a populated SQLite ledger to PostgreSQL', () => {
  let db: TestPostgresDatabase;
  let world: WorkerWorld;
  beforeAll(async () => {
    expectBuiltDaemon();
    db = await createTestPostgresDatabase('migrated');
    world = await WorkerWorld.start({
      brokerages: 2,
      workers: 1,
      leaseSeconds: 10,
      cashOfferTimeoutMs: 30_000,
    });
  });
  afterAll(async () => {
    await world?.close();
    await db?.drop();
  });

  it('moves every row, and the daemon on PostgreSQL sends nothing again', async () => {
    const [b1, b2] = world.brokerages;
    const deals = { [b1.id]: await world.seedDeals(b1, 3), [b2.id]: await world.seedDeals(b2, 3) };
    const [sqliteDaemon] = await world.startWorkers(1);
    // Sent, and written back: the write-back's prelim call is a POST under /offer-requests, which the
    // hanging fault below would catch too (and hold the drain for a whole timeout per deal).
    await waitFor(
      async () => {
        for (const b of [b1, b2]) {
          if ((await b.control.requests()).length !== 3) return false;
          for (const id of deals[b.id])
            if (!(await b.agent.deal(id, [REQUEST_ID])).properties[REQUEST_ID]) return false;
        }
        return true;
      },
      {
        what: 'the six deals sent from SQLite and their ids written back',
        timeoutMs: 60_000,
        intervalMs: 200,
      },
    );
    for (const b of [b1, b2]) {
      for (const r of await b.control.requests()) {
        await b.control.approve(r.offer_request_id);
        await b.control.makeOffer(r.offer_request_id);
      }
    }
    // One more deal, whose create the service stores but never answers: the daemon dies inside it.
    await b1.control.faults({ match: 'POST /offer-requests', hangAfterCommitMs: 120_000 });
    deals[b1.id].push(...(await world.seedDeals(b1, 1)));
    await waitFor(
      async () =>
        (await b1.control.requests()).length === 4 &&
        openRun(sqliteDaemon, b1.id, 'outbox-drain') !== undefined,
      { what: 'the daemon inside the fourth create', timeoutMs: 60_000, intervalMs: 100 },
    );
    await sqliteDaemon.kill('SIGKILL');
    await b1.control.clearFaults();
    const postsBefore = (await b1.control.calls()).filter(
      (c) => c.method !== 'GET' && !c.path.endsWith('/prelim'),
    ).length;

    const env = { ...world.environment, LOG_LEVEL: 'warn' };
    const refused = await cli(['migrate-ledger', '--to', 'mysql://nowhere'], env);
    expect(refused.code).toBe(1);
    const moved = await cli(['migrate-ledger', '--to', db.url, '--json'], env);
    expect(moved.stderr).toBe('');
    expect(moved.code).toBe(0);
    const report = JSON.parse(moved.stdout) as { migrated: boolean; rows: Record<string, number> };
    expect(report.migrated).toBe(true);
    expect(report.rows.outbox_commands).toBeGreaterThanOrEqual(7);
    expect(await outboxStates(db.url)).toMatchObject({ sending: 1 });
    // A second run finds the target in use and changes nothing.
    expect((await cli(['migrate-ledger', '--to', db.url], env)).code).toBe(1);

    // On PostgreSQL: the lost answer is found once the service lists the request, not re-sent.
    const [pgDaemon] = await world.startWorkers(1, { LEDGER_URL: db.url });
    const fourth = (await b1.control.requests()).find(
      (r) => r.offer_request_external_id === deals[b1.id][3],
    )!;
    await b1.control.approve(fourth.offer_request_id);
    // And new work goes on: a deal for b2 created after the move is sent once.
    deals[b2.id].push(...(await world.seedDeals(b2, 1)));
    await waitFor(
      async () => {
        const states = await outboxStates(db.url);
        const open =
          (states.pending ?? 0) + (states.sending ?? 0) + (states.unknown ?? 0) + (states.failed ?? 0);
        return open === 0 && (await b2.control.requests()).length === 4;
      },
      { what: 'the PostgreSQL daemon to settle every command', timeoutMs: 90_000, intervalMs: 100 },
    );
    for (const b of [b1, b2]) {
      const externalIds = (await b.control.requests()).map((r) => r.offer_request_external_id).sort();
      expect(externalIds).toEqual([...deals[b.id]].sort());
    }
    // Not one create, decision or other write to b1's service since the move (a prelim check is a
    // POST that changes nothing).
    const writes = async () =>
      (await b1.control.calls()).filter((c) => c.method !== 'GET' && !c.path.endsWith('/prelim'));
    const postsAfter = await writes();
    expect(postsAfter.slice(postsBefore)).toEqual([]);
    expect((await pgDaemon.kill('SIGTERM')).code).toBe(0);
  });
});
