import './simulators-logging';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { openLedger } from '../src/ledger';
import { jobKey } from '../src/scheduler/job-key';
import { createPgBoss } from '../src/scheduler/pg-boss/pg-boss.engine';
import { waitFor } from '../test/support/wait-for';
import { cpuSecondsOf, postgresCpuSeconds, traceRound } from './scale-trace';
import { WorkerWorld } from '../test/support/worker-world';

// Horizontal scale on one PostgreSQL ledger: 8 brokerages, each with its own rate-limited CRM account
// and a backlog of listing deals to send (each one an offer request, then a CRM write-back), synced by
// 1, 2 and 4 daemons (dist/bin/daemon.js). A worker holds WORKER_CONCURRENCY runs at once, so one worker
// cannot take every brokerage at the same time; more workers take more. Prints brokerages synced per
// minute and the ratio to one worker. BENCH_POSTGRES_URL uses a server of your own; otherwise an
// embedded one is started (and stopped).
const BROKERAGES = 8;
const DEALS = Number(process.env.BENCH_DEALS ?? 24);
const CRM_REQUESTS_PER_SECOND = 4;
const WORKER_CONCURRENCY = 2;
const WORKER_COUNTS = [1, 2, 4];
const TARGETS: Record<number, number> = { 2: 1.8, 4: 3.2 };
const PAUSED_UNTIL_ALL_UP = 'bench:scale: until every worker is up';

interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

const ROOT = resolve(__dirname, '..', '..');

async function postgresServer(): Promise<EmbeddedPostgres> {
  if (process.env.BENCH_POSTGRES_URL) return { url: process.env.BENCH_POSTGRES_URL, stop: async () => {} };
  const helper = (await import(join(ROOT, 'test', 'support', 'embedded-postgres.js'))) as {
    startEmbeddedPostgres(): Promise<EmbeddedPostgres>;
  };
  return helper.startEmbeddedPostgres();
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

// One round: a fresh database and world, the backlog seeded, the workers started with every
// brokerage paused and resumed once all of them listen, every brokerage's poll asked for at once;
// the clock runs from the first run until every brokerage's deals are sent and written back.
// (Started unpaused, the first worker up would work while the others start: at 4 workers up to
// 2.6 s of work before the last one listened, charged to no round's clock, and the others' start-up
// slowing its first runs. That measures a fleet's start, not how fast N running workers get through
// a backlog.)
async function round(
  serverUrl: string,
  workers: number,
): Promise<{ seconds: number; perMinute: number; bound: string }> {
  const name = `scale_${workers}_${Date.now()}`;
  await withClient(serverUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const world = await WorkerWorld.start({
    brokerages: BROKERAGES,
    workers,
    ledgerUrl: url.toString(),
    leaseSeconds: 120,
    crmRequestsPerSecond: CRM_REQUESTS_PER_SECOND,
    logLevel: 'info',
    // Only the two jobs that move the backlog; the others would only take turns from them.
    schedules: { inboxDrain: '0 0 1 1 *', offersReconcile: '0 0 1 1 *' },
  });
  try {
    await Promise.all(world.brokerages.map((b) => world.seedDeals(b, DEALS)));
    const ledger = await openLedger({ url: url.toString(), databasePath: join(world.dir, 'unused.sqlite') });
    try {
      for (const b of world.brokerages) await ledger.pauses.pause(b.id, undefined, PAUSED_UNTIL_ALL_UP);
      await world.startWorkers(workers, { WORKER_CONCURRENCY: String(WORKER_CONCURRENCY) });
      // Every brokerage at once (one statement): resumed one by one, a brokerage still paused
      // while the others start would have its first poll skipped and queued again behind their
      // next ticks.
      await ledger.dataSource.query('DELETE FROM pauses');
      await pollEveryBrokerageNow(url.toString(), world);
    } finally {
      await ledger.close();
    }
    const cpuAtStart = cpuNow(world, name);
    const done = new Map<string, number>();
    await withClient(url.toString(), (ledger) =>
      waitFor(
        async () => {
          const { rows } = await ledger.query<{ brokerage_id: string; open: string; sent: string }>(
            `SELECT brokerage_id,
                    COUNT(*) FILTER (WHERE state <> 'done') AS open,
                    COUNT(*) FILTER (WHERE state = 'done' AND operation = 'write_back') AS sent
               FROM outbox_commands GROUP BY brokerage_id`,
          );
          for (const row of rows) {
            if (!done.has(row.brokerage_id) && Number(row.open) === 0 && Number(row.sent) === DEALS) {
              done.set(row.brokerage_id, Date.now());
            }
          }
          return done.size === BROKERAGES;
        },
        {
          what: `${BROKERAGES} brokerages synced by ${workers} worker(s)`,
          timeoutMs: 15 * 60_000,
          intervalMs: 250,
        },
      ),
    );
    const finished = Date.now();
    const started = await firstRunStart(url.toString());
    const seconds = (finished - started) / 1000;
    for (const b of world.brokerages) {
      const requests = await b.control.requests();
      if (requests.length !== DEALS)
        throw new Error(`${b.id}: ${requests.length} offer requests for ${DEALS} deals`);
    }
    let bound = await whatBounds(url.toString(), world, seconds, workers);
    if (process.env.BENCH_TRACE) {
      const cpuAtEnd = cpuNow(world, name);
      const cpu = Object.fromEntries(Object.entries(cpuAtEnd).map(([k, v]) => [k, v - cpuAtStart[k]]));
      const file = `${process.env.BENCH_TRACE}-${workers}.json`;
      bound += `\n  ${await withClient(url.toString(), (c) => traceRound(c, file, started, cpu))}`;
    }
    await world.stopWorkers();
    return { seconds, perMinute: (BROKERAGES / seconds) * 60, bound };
  } finally {
    await world.close();
    await withClient(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  }
}

// Asks for every brokerage's poll at once, as an operator's "Run now" would: the ticks' jobs that
// ran during the pause were skipped, and the next ones come at the next tick (up to 2 s later,
// for some brokerages and not others, which moved the clock's start by a random second or two).
async function pollEveryBrokerageNow(url: string, world: WorkerWorld): Promise<void> {
  const boss = await createPgBoss({ ledgerUrl: url, jobLeaseSeconds: 60 }, 'one-off');
  await boss.start();
  try {
    for (const b of world.brokerages) {
      await boss.send(jobKey(b.id, 'crm-changes'), { brokerageId: b.id, job: 'crm-changes' });
    }
  } finally {
    await boss.stop({ graceful: false, wait: true });
  }
}

async function firstRunStart(url: string): Promise<number> {
  const { rows } = await withClient(url, (c) =>
    c.query<{ first: string }>(`SELECT EXTRACT(EPOCH FROM MIN(started_at)) * 1000 AS first FROM runs`),
  );
  return Number(rows[0].first);
}

// CPU seconds so far: the workers, this process (the simulators) and the round's PostgreSQL backends.
function cpuNow(world: WorkerWorld, database: string): Record<string, number> {
  const usage = process.cpuUsage();
  return {
    workers: world.workers.reduce((n, w) => n + cpuSecondsOf(w.child.pid ?? 0), 0),
    simulators: (usage.user + usage.system) / 1e6,
    postgres: postgresCpuSeconds(database),
  };
}

// What held the round back: how busy the workers' slots were (near 100%: worker capacity bounds
// it, so more workers help), the most run time one brokerage needed (its remote limits: no number
// of workers makes it shorter), and the 429s the remotes answered (limits overrun, time lost).
async function whatBounds(
  url: string,
  world: WorkerWorld,
  seconds: number,
  workers: number,
): Promise<string> {
  const { rows } = await withClient(url, (c) =>
    c.query<{ brokerage_id: string; busy: string }>(
      `SELECT brokerage_id, SUM(EXTRACT(EPOCH FROM finished_at - started_at)) AS busy
         FROM runs WHERE finished_at IS NOT NULL GROUP BY brokerage_id`,
    ),
  );
  const busy = rows.map((r) => Number(r.busy));
  const total = busy.reduce((a, b) => a + b, 0);
  const slots = workers * WORKER_CONCURRENCY;
  const answered429 = world.workers.reduce(
    (n, w) => n + (w.stdout().match(/rate limited by (HubSpot|Follow Up Boss)/g)?.length ?? 0),
    0,
  );
  return (
    `slots busy ${((100 * total) / (seconds * slots)).toFixed(0)}% of ${slots}, ` +
    `longest brokerage ${Math.max(...busy).toFixed(1)} s of runs, CRM 429s ${answered429}`
  );
}

async function main(): Promise<void> {
  const server = await postgresServer();
  try {
    console.log(
      `bench:scale: ${BROKERAGES} brokerages x ${DEALS} deals, CRM ${CRM_REQUESTS_PER_SECOND} req/s per account, ` +
        `WORKER_CONCURRENCY=${WORKER_CONCURRENCY}`,
    );
    const results: { workers: number; seconds: number; perMinute: number }[] = [];
    for (const workers of WORKER_COUNTS) {
      const result = await round(server.url, workers);
      results.push({ workers, ...result });
      const ratio = result.perMinute / results[0].perMinute;
      const target = TARGETS[workers] ? ` (target >= ${TARGETS[workers]}x)` : '';
      console.log(
        `${workers} worker(s): ${result.seconds.toFixed(1)} s, ${result.perMinute.toFixed(2)} brokerages synced/min, ` +
          `${ratio.toFixed(2)}x one worker${target}; ${result.bound}`,
      );
    }
    const missed = results.filter(
      (r) => TARGETS[r.workers] && r.perMinute / results[0].perMinute < TARGETS[r.workers],
    );
    if (missed.length > 0) process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
