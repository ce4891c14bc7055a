import { spawnSync } from 'node:child_process';
import { Agent, IncomingMessage, Server, createServer, get } from 'node:http';
import { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { CashOfferClientFactory } from '../src/cash-offer';
import { CashOfferTransport } from '../src/cash-offer/cash-offer.transport';
import type { ActiveOfferRequest } from '../src/cash-offer/schema';
import { startCashOfferSandbox } from '../src/sandbox/cash-offer';

// Streams 10,000 active offer requests (pages of 100) through CashOfferClient and through a bare
// node:http keep-alive loop against the same server, so the difference is the client's own cost
// (axios, rate limiter, retry, breaker). Two servers: the sandbox, then a server that does no work.
const TOTAL = 10_000;
const PAGE = 100;
const ROUNDS = 9;
const TARGET_OVERHEAD_PCT = 10;
const KEY = 'bench-key';

function record(i: number): ActiveOfferRequest {
  return {
    request: {
      offer_request_id: i + 1,
      inventory_property_id: 100_000 + i,
      offer_request_asking: 200_000 + i * 10,
      offer_request_status: i % 2 ? 'active' : 'receiving_offers',
      offer_requested_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
      test: false,
    },
    property: {
      StreetNumber: String(100 + (i % 900)),
      StreetName: `Maple Avenue ${i}`,
      PostalCity: 'Austin',
      StateOrProvince: 'TX',
      PostalCode: '78701',
      MlsStatus: 'Active',
      BedroomsTotal: 3,
      BathroomsFull: 2,
      LivingArea: 1800,
      YearBuilt: 1990 + (i % 30),
      PropertySubType: 'Single Family Residence',
      Notes: 'Quiet street near the park; roof replaced recently.',
    },
    media: [`https://media.example.test/${i}/front.jpg?expires=1767225600&sig=${'a'.repeat(64)}`],
  };
}

function pageServer(): { server: Server; bytes: number } {
  const pages = new Map<number, Buffer>();
  let bytes = 0;
  for (let offset = 0; offset <= TOTAL; offset += PAGE) {
    const items = [];
    for (let i = offset; i < Math.min(offset + PAGE, TOTAL); i++) items.push(record(i));
    const body = Buffer.from(JSON.stringify(items));
    bytes += body.length;
    pages.set(offset, body);
  }
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.headers.authorization !== KEY || !url.pathname.startsWith('/api/v2/active-offer-requests')) {
      res.writeHead(401).end();
      return;
    }
    const body = pages.get(Number(url.searchParams.get('offset') ?? 0)) ?? Buffer.from('[]');
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
  });
  return { server, bytes };
}

interface Run {
  ms: number;
  cpuMs: number;
  records: number;
}

const mb = (n: number) => n / 1024 / 1024;
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

async function time(stream: () => AsyncIterable<unknown[]>): Promise<Run> {
  let records = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  for await (const page of stream()) records += page.length;
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, records };
}

// A separate, untimed pass: collect garbage while each page is held, so the figure is what the
// stream retains (one page and the client's state), not garbage not yet collected.
async function peakRetainedMb(stream: () => AsyncIterable<unknown[]>): Promise<number> {
  gc();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  for await (const page of stream()) {
    gc();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    if (page.length === 0) break;
  }
  return mb(peak - base);
}

function bareStream(baseUrl: string, key: string, agent: Agent): () => AsyncIterable<unknown[]> {
  const fetchPage = (offset: number) =>
    new Promise<unknown[]>((resolve, reject) => {
      const url = `${baseUrl}/active-offer-requests?limit=${PAGE}&offset=${offset}`;
      get(url, { agent, headers: { authorization: key } }, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown[]));
        res.on('error', reject);
      }).on('error', reject);
    });
  // A keep-alive socket the server closed just as it was reused: try that page once more.
  const fetchPageOnce = (offset: number) =>
    fetchPage(offset).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ECONNRESET') throw e;
      return fetchPage(offset);
    });
  return async function* () {
    for (let offset = 0; ; offset += PAGE) {
      const page = await fetchPageOnce(offset);
      if (page.length > 0) yield page;
      if (page.length < PAGE) return;
    }
  };
}

// The client's axios layer alone (CashOfferTransport, same config), without validation, rate
// limit, retry or breaker: splits the overhead between axios and the client's own layers.
function transportStream(transport: CashOfferTransport): () => AsyncIterable<unknown[]> {
  return async function* () {
    for (let offset = 0; ; offset += PAGE) {
      const res = await transport.send({
        method: 'GET',
        path: '/active-offer-requests',
        query: { limit: PAGE, offset },
      });
      const page = JSON.parse(res.body) as unknown[];
      if (page.length > 0) yield page;
      if (page.length < PAGE) return;
    }
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Target {
  name: string;
  baseUrl: string;
  key: string;
}

// Times both ways of streaming against one server and prints them side by side.
async function compare(target: Target): Promise<{ wall: number; cpu: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  // The default limit (10 requests per second) would pace 100 pages over 10 s by design; the
  // bench measures the client's cost, so it gives the brokerage a limit the run never reaches.
  const client = new CashOfferClientFactory().create({
    brokerageId: 'bench',
    baseUrl: target.baseUrl,
    apiKey: target.key,
    rateLimit: { requests: 10_000, perMs: 1000 },
  });
  const transport = new CashOfferTransport(target.baseUrl, target.key, 10_000);
  const viaAxios = transportStream(transport);
  const bare = bareStream(target.baseUrl, target.key, agent);
  const viaClient = () => client.streamActiveOfferRequests({ pageSize: PAGE });
  const clientRuns: Run[] = [];
  const bareRuns: Run[] = [];
  const axiosRuns: Run[] = [];
  const peaks = { client: 0, bare: 0 };
  try {
    // One warm-up of each, then alternate so both see the same machine load.
    await time(bare);
    await time(viaClient);
    for (let round = 0; round < ROUNDS; round++) {
      bareRuns.push(await time(bare));
      clientRuns.push(await time(viaClient));
      axiosRuns.push(await time(viaAxios));
    }
    peaks.client = await peakRetainedMb(viaClient);
    peaks.bare = await peakRetainedMb(bare);
  } finally {
    client.close();
    transport.close();
    agent.destroy();
  }
  for (const run of [...clientRuns, ...bareRuns])
    if (run.records !== TOTAL) throw new Error(`a run streamed ${run.records} records instead of ${TOTAL}`);

  // Other processes share this machine: the best round of each is the least disturbed, so the
  // overhead is computed from those; medians and CPU time are printed beside them.
  const best = (runs: Run[]) => Math.min(...runs.map((r) => r.ms));
  const overhead = ((best(clientRuns) - best(bareRuns)) / best(bareRuns)) * 100;
  const cpuOverhead =
    ((median(clientRuns.map((r) => r.cpuMs)) - median(bareRuns.map((r) => r.cpuMs))) /
      median(bareRuns.map((r) => r.cpuMs))) *
    100;
  const row = (name: string, runs: Run[], peak: number) =>
    `  ${name.padEnd(32)} best ${best(runs).toFixed(0).padStart(4)} ms (${(TOTAL / (best(runs) / 1000)).toFixed(0)} records/s), median ${median(
      runs.map((r) => r.ms),
    )
      .toFixed(0)
      .padStart(4)} ms, CPU ${median(runs.map((r) => r.cpuMs))
      .toFixed(0)
      .padStart(4)} ms, peak retained heap +${peak.toFixed(2)} MB`;
  console.log(`\n${target.name}`);
  console.log(row('CashOfferClient.streamActive…', clientRuns, peaks.client));
  console.log(row('bare node:http keep-alive loop', bareRuns, peaks.bare));
  const cpu = (runs: Run[]) => median(runs.map((r) => r.cpuMs));
  console.log(
    `  of which axios alone (CashOfferTransport loop): CPU ${cpu(axiosRuns).toFixed(0)} ms, ${(((cpu(axiosRuns) - cpu(bareRuns)) / cpu(bareRuns)) * 100).toFixed(1)} % over the bare loop`,
  );
  console.log(
    `  client overhead: ${overhead.toFixed(1)} % wall time (best rounds), ${cpuOverhead.toFixed(1)} % CPU time (medians)`,
  );
  const perCallMs =
    (median(clientRuns.map((r) => r.cpuMs)) - median(bareRuns.map((r) => r.cpuMs))) / (TOTAL / PAGE);
  console.log(`  = ${perCallMs.toFixed(2)} ms of CPU per page request, whatever the server's own latency`);
  return { wall: overhead, cpu: cpuOverhead };
}

async function main(): Promise<void> {
  console.log(
    `Streaming ${TOTAL} active offer requests, pages of ${PAGE}; median of ${ROUNDS} rounds after a warm-up;`,
  );
  console.log('retained heap measured in a separate pass that collects garbage while each page is held.');

  const sandbox = await startCashOfferSandbox({ port: 0 });
  let sandboxOverhead: { wall: number; cpu: number };
  try {
    const seeded = await fetch(`${sandbox.controlUrl}/seed-active`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ count: TOTAL }),
    });
    if (seeded.status !== 201) throw new Error(`seeding the sandbox answered ${seeded.status}`);
    sandboxOverhead = await compare({
      name: 'against the Cash Offer sandbox (the service as the daemon meets it)',
      baseUrl: sandbox.baseUrl,
      key: sandbox.agentKey,
    });
  } finally {
    await sandbox.close();
  }

  const { server, bytes } = pageServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await compare({
      name: `against a server answering pre-serialised pages (${mb(bytes).toFixed(1)} MB of JSON; no server work, the harshest ratio)`,
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`,
      key: KEY,
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }

  // Judged on CPU time: wall time on this shared machine swings by tens of percent between runs.
  const ok = sandboxOverhead.cpu < TARGET_OVERHEAD_PCT;
  console.log(
    `\ntarget: client overhead under ${TARGET_OVERHEAD_PCT} % against the sandbox (CPU time): ${sandboxOverhead.cpu.toFixed(1)} % ${ok ? 'OK' : 'MISSED'}; wall time (best rounds) ${sandboxOverhead.wall.toFixed(1)} %`,
  );
  console.log(
    `memory target: about one page retained (${mb(bytes / (TOTAL / PAGE)).toFixed(2)} MB of JSON), not the whole list`,
  );
}

// Rerun under --expose-gc so heap figures start from a collected heap.
if (!(globalThis as { gc?: unknown }).gc) {
  const child = spawnSync(process.execPath, ['--expose-gc', __filename], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
