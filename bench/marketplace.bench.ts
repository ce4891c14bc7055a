import './simulators-logging';
import { fork, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Logger } from '@nestjs/common';
import { CashOfferClientFactory } from '../src/cash-offer';
import { SystemClock } from '../src/common/clock';
import type { LoadedBrokerage } from '../src/config/config.loader';
import { CASH_OFFER_CRM_SCHEMA, CRM_ROLE, CrmStageMap, VendorNeutralCrmPort } from '../src/crm';
import { HubSpotCrmAdapter, hubSpotVendorProfile } from '../src/crm/hubspot';
import { openLedger } from '../src/ledger/ledger';
import { startCashOfferSandbox } from '../sandbox/cash-offer';
import { startHubSpotEmulator } from '../sandbox/hubspot';
import type { RequestLogEntry } from '../sandbox/hubspot';
import type { JobCounts } from '../src/scheduler/job.types';
import { MarketplaceSync } from '../src/sync/marketplace/marketplace.sync';

// The marketplace mirror at scale: 10,000 listings against the HubSpot emulator limited to 190
// requests per 10 s (HubSpot's private-app burst limit), then a pass with nothing changed, then the
// same at 100,000 listings to show memory stays flat. The simulators run in a child process so the
// figures are the daemon's own memory. The emulator keeps its defaults (search indexing lag on,
// batch upserts failing whole on one invalid input). A second run does it all again with 1 % of
// the listings invalid for HubSpot, to show the cost of isolating them.
const TOKEN = 'pat-bench-marketplace';
const LIMIT = { max: 190, intervalMs: 10_000 };
const TARGET_PEAK_MB = 200;
const FLAT_RSS_RISE = 0.1;

// Time spent inside CRM writes, to tell the CRM's share of a pass from the rest. With
// `invalidShare`, that share of the listings (picked by key, so the same ones every pass) reaches
// HubSpot with a bedroom count that is not a number, as a bad listing would.
class TimedHubSpotAdapter extends HubSpotCrmAdapter {
  writeMs = 0;
  invalidShare = 0;
  override async upsertRecords(
    ...[kind, unique, inputs]: Parameters<HubSpotCrmAdapter['upsertRecords']>
  ): ReturnType<HubSpotCrmAdapter['upsertRecords']> {
    const started = performance.now();
    const sent = inputs.map((input) =>
      isPicked(input.key, this.invalidShare)
        ? { ...input, properties: { ...input.properties, cash_offer_listing_beds: 'three' } }
        : input,
    );
    try {
      return await super.upsertRecords(kind, unique, sent);
    } finally {
      this.writeMs += performance.now() - started;
    }
  }
}

// A stable pick of `share` of the keys (FNV-1a hash).
function isPicked(key: string, share: number): boolean {
  if (share <= 0) return false;
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return hash % 10_000 < share * 10_000;
}

interface Simulators {
  baseUrl: string;
  controlUrl: string;
  buyerKey: string;
  crmUrl: string;
}

async function simulatorsChild(): Promise<void> {
  const sandbox = await startCashOfferSandbox({ port: 0 });
  const emulator = await startHubSpotEmulator({
    port: 0,
    token: TOKEN,
    rateLimit: LIMIT,
    searchPerSecond: 5,
  });
  const ready: Simulators = {
    baseUrl: sandbox.baseUrl,
    controlUrl: sandbox.controlUrl,
    buyerKey: sandbox.buyerKey,
    crmUrl: emulator.url,
  };
  process.send!(ready);
  process.on(
    'disconnect',
    () => void Promise.all([sandbox.close(), emulator.close()]).then(() => process.exit(0)),
  );
}

async function startSimulators(): Promise<{ child: ChildProcess; sims: Simulators }> {
  // The simulators hold every listing in memory: they never inherit the daemon side's node flags.
  const child = fork(__filename, ['--simulators'], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const sims = await new Promise<Simulators>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Simulators));
    child.once('exit', (code) => reject(new Error(`simulators exited with ${code}`)));
  });
  return { child, sims };
}

async function call(method: string, url: string, body?: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const GC_EVERY_LISTINGS = 5_000;

// Peak RSS while a pass runs (sampled every 20 ms), and the heap that stays live: measured after a
// full GC every 5,000 listings, so garbage waiting to be collected does not count.
function memoryWatch(): { atProgress(read: number): void; stop(): { rssMb: number; heapMb: number } } {
  let rss = 0;
  let heap = 0;
  let atPeak = process.memoryUsage();
  let nextGc = GC_EVERY_LISTINGS;
  const sample = (): void => {
    const m = process.memoryUsage();
    if (m.rss > rss) atPeak = m;
    rss = Math.max(rss, m.rss);
  };
  const retained = (): void => {
    (globalThis as { gc?: () => void }).gc?.();
    heap = Math.max(heap, process.memoryUsage().heapUsed);
  };
  sample();
  const timer = setInterval(sample, 20);
  return {
    atProgress: (read) => {
      if (read < nextGc) return;
      nextGc = read + GC_EVERY_LISTINGS;
      retained();
    },
    stop: () => {
      clearInterval(timer);
      sample();
      retained();
      const mb = (n: number): string => (n / 2 ** 20).toFixed(0);
      if (process.env.BENCH_MEMORY_DETAIL)
        console.log(
          `  at peak RSS: heapTotal ${mb(atPeak.heapTotal)} MB, heapUsed ${mb(atPeak.heapUsed)} MB, external ${mb(atPeak.external)} MB, arrayBuffers ${mb(atPeak.arrayBuffers)} MB`,
        );
      return { rssMb: rss / 2 ** 20, heapMb: heap / 2 ** 20 };
    },
  };
}

interface PassFigures {
  label: string;
  seconds: number;
  counts: JobCounts;
  crmCalls: number;
  crmWrites: number;
  serviceCalls: number;
  floorSeconds: number;
  crmWriteSeconds: number;
  emulatorWriteSeconds: number;
  rssMb: number;
  heapMb: number;
}

// The node flags `npm run start:daemon` gives the daemon (the heap limit that keeps V8's garbage
// slack small), so the daemon side here runs exactly as shipped.
function daemonNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const start = /\bnode((?:\s+--\S+)*)\s+dist\/bin\/daemon\.js/.exec(pkg.scripts['start:daemon']);
  if (!start)
    throw new Error(
      `package.json's start:daemon script does not run dist/bin/daemon.js: ${pkg.scripts['start:daemon']}`,
    );
  return start[1].trim().split(/\s+/).filter(Boolean);
}

async function main(): Promise<void> {
  // The adapter logs every 429 it waits out; the bench counts calls instead.
  Logger.overrideLogger(['error']);
  console.log(`daemon side: node ${process.execArgv.join(' ')} (the flags of npm start, plus --expose-gc)`);
  // Each mode on fresh simulators and a fresh ledger; memory targets are for the clean mode.
  await runMode(0);
  await runMode(0.01);
}

async function runMode(invalidShare: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cos-bench-marketplace-'));
  const { child, sims } = await startSimulators();
  const ledger = await openLedger({ databasePath: join(dir, 'ledger.sqlite') });
  const crm = new TimedHubSpotAdapter({ accessToken: TOKEN, basePath: sims.crmUrl, rateLimit: LIMIT });
  const port = new VendorNeutralCrmPort(crm, hubSpotVendorProfile(new Map()));
  crm.invalidShare = invalidShare;
  const stages = CrmStageMap.fromReport(await crm.ensureSchema(CASH_OFFER_CRM_SCHEMA));
  // setup-crm's own calls (about 100) must not eat the first pass's rate-limit window.
  await new Promise((r) => setTimeout(r, LIMIT.intervalMs + 500));
  let serviceCalls = 0;
  const client = new CashOfferClientFactory().create({
    brokerageId: 'bench',
    baseUrl: sims.baseUrl,
    apiKey: sims.buyerKey,
    rateLimit: { max: 1000, intervalMs: 1000 },
    onCall: () => serviceCalls++,
  });
  const sync = new MarketplaceSync(ledger.links, ledger.recordErrors, new SystemClock());
  const brokerage = { id: 'bench' } as LoadedBrokerage;
  const figures: PassFigures[] = [];

  const pass = async (label: string): Promise<void> => {
    await call('DELETE', `${sims.crmUrl}/__control/requests`);
    const crmBefore = crm.callCount;
    const serviceBefore = serviceCalls;
    const writeMsBefore = crm.writeMs;
    const run = await ledger.runs.start('bench', 'marketplace');
    const watch = memoryWatch();
    const started = performance.now();
    const counts = await sync.run(
      {
        brokerage,
        runId: run.id,
        signal: new AbortController().signal,
        dryRun: false,
        progress: () => undefined,
      },
      client,
      // As the daemon's marketplace job does: the flow talks to the vendor-neutral port.
      { crm: port, stages, record: { nameProperty: CRM_ROLE.name } },
    );
    const seconds = (performance.now() - started) / 1000;
    const memory = watch.stop();
    await ledger.runs.finish(run.id, { status: 'succeeded', counts });
    const log = ((await call('GET', `${sims.crmUrl}/__control/requests`)) as { requests: RequestLogEntry[] })
      .requests;
    const writes = log.filter(
      (e) => e.method !== 'GET' && !/\/(search|batch\/read)$/.test(e.path) && e.status < 400,
    );
    const crmCalls = crm.callCount - crmBefore;
    const serverMs = writes.reduce((sum, e) => sum + e.durationMs, 0);
    // The calls the pass needs (answered ones, 429s left out). A rolling window lets the first 190
    // through at once and the k-th (0-based) no sooner than floor(k / 190) windows later: the
    // same floor bench:crm uses.
    const needed = log.filter((e) => e.status !== 429).length;
    const floorSeconds = needed === 0 ? 0 : Math.floor((needed - 1) / LIMIT.max) * (LIMIT.intervalMs / 1000);
    figures.push({
      label,
      seconds,
      counts,
      crmCalls,
      crmWrites: writes.length,
      serviceCalls: serviceCalls - serviceBefore,
      floorSeconds,
      crmWriteSeconds: (crm.writeMs - writeMsBefore) / 1000,
      emulatorWriteSeconds: serverMs / 1000,
      ...memory,
    });
    const f = figures[figures.length - 1];
    console.log(
      `${label.padEnd(34)} ${f.seconds.toFixed(1).padStart(6)} s (floor ${f.floorSeconds.toFixed(1)} s, in CRM writes ${f.crmWriteSeconds.toFixed(1)} s, of which the emulator's own ${f.emulatorWriteSeconds.toFixed(1)} s)  ` +
        `CRM calls ${String(f.crmCalls).padStart(5)}, writes ${String(f.crmWrites).padStart(5)}, service calls ${String(f.serviceCalls).padStart(5)}  ` +
        `peak RSS ${f.rssMb.toFixed(0)} MB, live heap ${f.heapMb.toFixed(0)} MB  ` +
        `created ${counts.created} updated ${counts.updated} unchanged ${counts.unchanged} failed ${counts.failed}`,
    );
  };

  try {
    const baselineMb = process.memoryUsage().rss / 2 ** 20;
    console.log(
      `\nmarketplace mirror; HubSpot emulator limited to ${LIMIT.max} requests per ${LIMIT.intervalMs / 1000} s, ` +
        `search indexing lag on; ${invalidShare > 0 ? `${invalidShare * 100} % of the listings invalid for HubSpot` : 'every listing valid'}\n`,
    );
    await call('POST', `${sims.controlUrl}/seed-active`, { count: 10_000 });
    await pass('10,000 listings, first pass');
    await pass('10,000 listings, nothing changed');
    await call('POST', `${sims.controlUrl}/seed-active`, { count: 90_000 });
    // The first pass's 100 calls are still in HubSpot's window: wait it out, so this pass starts
    // with the whole burst, as the floor assumes.
    await new Promise((r) => setTimeout(r, LIMIT.intervalMs + 500));
    await pass('100,000 listings (90,000 new)');
    await pass('100,000 listings, nothing changed');

    const [first, same, big, bigSame] = figures;
    const pct = (f: PassFigures): string =>
      f.floorSeconds === 0 ? 'n/a' : `${((f.seconds / f.floorSeconds - 1) * 100).toFixed(1)} %`;
    const peak = Math.max(...figures.map((f) => f.rssMb));
    const flat = big.heapMb <= first.heapMb * 1.25;
    const row = (what: string, measured: string, target: string): void =>
      console.log(`${what.padEnd(44)}${measured.padEnd(22)}${target}`);
    console.log('');
    row('what', 'measured', 'target');
    row(
      'full pass, 10,000 new',
      `${first.seconds.toFixed(1)} s`,
      `floor ${first.floorSeconds.toFixed(1)} s (${first.crmWrites} write calls fit one 190/10 s window)`,
    );
    row(
      'full pass, 90,000 new of 100,000',
      `${big.seconds.toFixed(1)} s`,
      `floor ${big.floorSeconds.toFixed(1)} s for ${big.crmWrites} write calls at 190/10 s`,
    );
    row(
      'above the floor, 10k / 100k',
      `${pct(first)} / ${pct(big)}`,
      'a 10k pass fits one window (floor 0); 100k: <= 15 %',
    );
    if (invalidShare > 0) {
      row(
        'failed alone, 10k / 100k first passes',
        `${first.counts.failed} / ${big.counts.failed}`,
        `the invalid ones, about ${invalidShare * 100} % of the listings read (${Math.round(10_000 * invalidShare)} / ${Math.round(100_000 * invalidShare)})`,
      );
      row(
        'no-change pass CRM calls / writes, 10k / 100k',
        `${same.crmCalls} / ${same.crmWrites}, ${bigSame.crmCalls} / ${bigSame.crmWrites}`,
        'calls only for the failed listings, tried again; 0 writes',
      );
    } else
      row(
        'no-change pass CRM writes, 10k / 100k',
        `${same.crmWrites} / ${bigSame.crmWrites}`,
        `0   ${same.crmWrites + bigSame.crmWrites === 0 ? 'ok' : 'MISSED'}`,
      );
    row(
      'no-change pass API calls, 10k',
      `CRM ${same.crmCalls}, service ${same.serviceCalls}`,
      'service: one call per page of 100, each from the last listing of the one before, and the last alone',
    );
    row(
      'peak live heap (after GC), 10k / 100k',
      `${first.heapMb.toFixed(0)} / ${big.heapMb.toFixed(0)} MB`,
      `flat   ${flat ? 'ok' : 'MISSED'}`,
    );
    row(
      'peak RSS, 10k / 100k',
      `${first.rssMb.toFixed(0)} / ${big.rssMb.toFixed(0)} MB`,
      `< ${TARGET_PEAK_MB} MB   ${peak < TARGET_PEAK_MB ? 'ok' : 'MISSED'} (RSS before the first pass ${baselineMb.toFixed(0)} MB)`,
    );
    // Flat: ten times the listings may not cost more than a tenth more memory.
    const rssRise = (big.rssMb - first.rssMb) / first.rssMb;
    row(
      'peak RSS rise, 10k -> 100k listings',
      `${(rssRise * 100).toFixed(0)} %`,
      `flat (< ${FLAT_RSS_RISE * 100} %)   ${rssRise < FLAT_RSS_RISE ? 'ok' : 'MISSED'}`,
    );
  } finally {
    client.close();
    await ledger.close();
    child.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--simulators')) void simulatorsChild();
// Started again with npm start's flags, and --expose-gc so the live heap can be measured apart
// from garbage.
else if (typeof (globalThis as { gc?: unknown }).gc !== 'function')
  process.exit(
    spawnSync(process.execPath, [...daemonNodeFlags(), '--expose-gc', __filename], { stdio: 'inherit' })
      .status ?? 1,
  );
else
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
