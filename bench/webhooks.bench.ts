import './simulators-logging';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { applyLedgerPragmas } from '../src/ledger/ledger.data-source';
import { startCashOfferSandbox } from '../sandbox/cash-offer';
import { freePort } from '../test/support/free-port';
import { writeBrokerageConfigs } from '../test/support/webhook-app';

// The daemon (a child process: dist/bin/daemon.js on a real config and ledger) receives webhooks from
// autocannon in this process over loopback. Every request carries a different offer, so each one is
// a durable insert, not a cheap duplicate. Next to it: raw better-sqlite3 doing the same durable
// INSERT ... ON CONFLICT DO NOTHING (WAL, synchronous=FULL) in autocommit.
const DURATION_S = 10;
const CONNECTIONS = 16;
const RAW_INSERTS = 5000;
const TARGET_RATE = 1500;
const TARGET_P99_MS = 50;
const TARGET_RATIO = 0.4;
const SECRET = 'bench-secret-0123456789abcdefghijkl';
const YEARLY = '0 0 1 1 *';
const IDLE_SCHEDULES = {
  crmChanges: YEARLY,
  offersReconcile: YEARLY,
  marketplace: YEARLY,
  outboxDrain: YEARLY,
  inboxDrain: YEARLY,
};

async function waitForHealth(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the daemon exited with code ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health/live`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the daemon did not become live within 60 s');
}

function rawInsertsPerSecond(dir: string): number {
  const db = new Database(join(dir, 'raw.sqlite'));
  applyLedgerPragmas(db);
  db.exec(
    'CREATE TABLE inbox (id INTEGER PRIMARY KEY AUTOINCREMENT, brokerage_id TEXT, dedupe_key TEXT UNIQUE, event_type TEXT, ordering_key TEXT, payload TEXT, status TEXT, attempts INTEGER, received_at TEXT)',
  );
  const insert = db.prepare(
    'INSERT INTO inbox (brokerage_id, dedupe_key, event_type, ordering_key, payload, status, attempts, received_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?) ON CONFLICT (dedupe_key) DO NOTHING',
  );
  const started = performance.now();
  for (let i = 0; i < RAW_INSERTS; i++) {
    insert.run(
      'acme',
      `key-${i}`,
      'new_offer',
      `offer_request:${i % 100}`,
      JSON.stringify(offer(i)),
      'pending',
      new Date().toISOString(),
    );
  }
  const rate = RAW_INSERTS / ((performance.now() - started) / 1000);
  db.close();
  return rate;
}

// The largest body the listener reads (just under its 256 KB limit) carrying a long array in a field
// the event does not have: the intake must stay responsive while it checks and stores such bodies.
const HUGE_BODIES = 20;
const HUGE_ITEMS = 80_000;
const HUGE_BODY_BYTES = JSON.stringify({ ...offer(0), items: Array(HUGE_ITEMS).fill({}) }).length;
const TARGET_STALL_MS = 250;

async function healthDuringHugeBodies(
  hookUrl: string,
  adminUrl: string,
): Promise<{ perBody: number; healthMax: number }> {
  let sending = true;
  let healthMax = 0;
  const probe = (async () => {
    while (sending) {
      const started = performance.now();
      await (await fetch(`${adminUrl}/health/live`)).arrayBuffer();
      healthMax = Math.max(healthMax, performance.now() - started);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const started = performance.now();
  for (let i = 0; i < HUGE_BODIES; i++) {
    const body = JSON.stringify({ ...offer(1_000_000 + i), items: Array(HUGE_ITEMS).fill({}) });
    const answer = await fetch(hookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    if (answer.status !== 200) throw new Error(`a huge body was answered ${answer.status}`);
  }
  const perBody = (performance.now() - started) / HUGE_BODIES;
  sending = false;
  await probe;
  return { perBody, healthMax };
}

function offer(i: number): Record<string, unknown> {
  return {
    event: 'new_offer',
    offer_id: i + 1,
    offer_request_id: 1 + (i % 100),
    offer_amount: 250_000 + i,
    offer_status: 'active',
    buyer_pays_buyer_broker_commission: false,
    buyer_pays_listing_broker_commission: false,
    buyer_broker_commission_pct: 3,
    listing_broker_commission_pct: 2.5,
    offer_expires: '2026-12-01T00:00:00Z',
    offer_memo: 'Cash, quick close',
    earnest_money: 5000,
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-bench-'));
  const sandbox = await startCashOfferSandbox({ port: 0 });
  const [port, webhookPort] = [await freePort(), await freePort()];
  const env: Record<string, string> = {
    CONFIG_DIR: join(dir, 'brokerages'),
    LEDGER_PATH: join(dir, 'ledger.sqlite'),
    ADMIN_PORT: String(port),
    WEBHOOK_PORT: String(webhookPort),
    LOG_LEVEL: 'warn',
  };
  writeBrokerageConfigs(
    env.CONFIG_DIR,
    [
      {
        id: 'acme',
        secret: SECRET,
        cashOfferBaseUrl: sandbox.baseUrl,
        cashOfferApiKey: sandbox.agentKey,
        // Intake alone is measured: the jobs that would apply these events stay idle for the run.
        schedules: IDLE_SCHEDULES,
      },
    ],
    env,
  );
  const nodeArgs = (process.env.BENCH_DAEMON_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const daemon = spawn(process.execPath, [...nodeArgs, resolve(__dirname, '../bin/daemon.js')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(url, daemon);
    let sent = 0;
    const result = await autocannon({
      url: `http://127.0.0.1:${webhookPort}/webhooks/acme/${SECRET}`,
      method: 'POST',
      connections: CONNECTIONS,
      duration: DURATION_S,
      headers: { 'content-type': 'application/json' },
      requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify(offer(sent++)) }) }],
    });
    const ledger = new Database(env.LEDGER_PATH, { readonly: true });
    const stored = (
      ledger.prepare("SELECT COUNT(*) AS n FROM inbox_events WHERE event_type = 'new_offer'").get() as {
        n: number;
      }
    ).n;
    ledger.close();
    const ok = result['2xx'];
    const rate = ok / DURATION_S;
    const raw = rawInsertsPerSecond(dir);
    const verdict = (pass: boolean) => (pass ? 'ok' : 'BELOW TARGET');
    console.log(
      `webhook intake, ${CONNECTIONS} connections for ${DURATION_S} s from a second process on loopback`,
    );
    console.log(
      `  accepted (2xx)        ${ok} events, non-2xx ${result.non2xx}, errors ${result.errors}, stored in the inbox ${stored}`,
    );
    console.log(
      `  sustained rate        ${rate.toFixed(0)} events/s  (target >= ${TARGET_RATE}: ${verdict(rate >= TARGET_RATE)})`,
    );
    console.log(
      `  latency p50 / p99     ${result.latency.p50} ms / ${result.latency.p99} ms  (p99 target < ${TARGET_P99_MS} ms: ${verdict(result.latency.p99 < TARGET_P99_MS)})`,
    );
    console.log(
      `  raw durable inserts   ${raw.toFixed(0)} /s  (better-sqlite3, WAL, synchronous=FULL, autocommit)`,
    );
    console.log(
      `  ratio to raw          ${((rate / raw) * 100).toFixed(0)} %  (target >= ${TARGET_RATIO * 100} %: ${verdict(rate / raw >= TARGET_RATIO)})`,
    );
    // Requests still in flight when the run ends are stored but not counted as answered.
    if (stored < ok)
      console.log(`  WARNING: ${ok} events were acknowledged but only ${stored} are in the inbox`);
    const stall = await healthDuringHugeBodies(
      `http://127.0.0.1:${webhookPort}/webhooks/acme/${SECRET}`,
      url,
    );
    console.log(
      `  ${HUGE_BODIES} bodies of ${(HUGE_BODY_BYTES / 1024).toFixed(0)} KB (an unknown field of ${HUGE_ITEMS} items): ${stall.perBody.toFixed(0)} ms each; /health/live meanwhile answers in at most ${stall.healthMax.toFixed(0)} ms  (target < ${TARGET_STALL_MS} ms: ${verdict(stall.healthMax < TARGET_STALL_MS)})`,
    );
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon.once('exit', r));
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
