import './simulators-logging';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { until } from '../test/support/worker-process';
import { WorkerWorld } from '../test/support/worker-world';

// Horizontal scale on one PostgreSQL ledger: 8 brokerages, each with its own rate-limited CRM account
// and a backlog of listing deals to send (each one an offer request, then a CRM write-back), synced by
// 1, 2 and 4 daemons (dist/src/main.js). A worker holds WORKER_CONCURRENCY runs at once, so one worker
// cannot take every brokerage at the same time; more workers take more. Prints brokerages synced per
// minute and the ratio to one worker. BENCH_POSTGRES_URL uses a server of your own; otherwise an
// embedded one is started (and stopped).
const BROKERAGES = 8;
const DEALS = Number(process.env.BENCH_DEALS ?? 24);
const CRM_REQUESTS_PER_SECOND = 4;
const WORKER_CONCURRENCY = 2;
const WORKER_COUNTS = [1, 2, 4];
const TARGETS: Record<number, number> = { 2: 1.8, 4: 3.2 };

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

// One round: a fresh database and world, the backlog seeded, then the clock runs from the moment the
// workers listen until every brokerage's deals are sent and written back.
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
    await world.startWorkers(workers, { WORKER_CONCURRENCY: String(WORKER_CONCURRENCY) });
    const started = Date.now();
    const done = new Map<string, number>();
    await withClient(url.toString(), (ledger) =>
      until(
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
        `${BROKERAGES} brokerages synced by ${workers} worker(s)`,
        15 * 60_000,
        250,
      ),
    );
    const seconds = (Date.now() - started) / 1000;
    for (const b of world.brokerages) {
      const requests = await b.control.requests();
      if (requests.length !== DEALS)
        throw new Error(`${b.id}: ${requests.length} offer requests for ${DEALS} deals`);
    }
    const bound = await whatBounds(url.toString(), world, seconds, workers);
    await world.stopWorkers();
    return { seconds, perMinute: (BROKERAGES / seconds) * 60, bound };
  } finally {
    await world.close();
    await withClient(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  }
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
