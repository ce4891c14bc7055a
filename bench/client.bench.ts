import { spawnSync } from 'node:child_process';
import { Agent, IncomingMessage, Server, createServer, get } from 'node:http';
import { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { CashOfferClientFactory } from '../src/cash-offer';
import type { ActiveOfferRequest } from '../src/cash-offer/schema';

// Streams 10,000 active offer requests (pages of 100) through CashOfferClient and through a bare
// node:http keep-alive loop, against the same in-process server answering pre-serialised pages,
// so the difference is the client's own cost (axios, validation, rate limiter, retry, breaker).
const TOTAL = 10_000;
const PAGE = 100;
const ROUNDS = 5;
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
  records: number;
}

const mb = (n: number) => n / 1024 / 1024;
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

async function time(stream: () => AsyncIterable<unknown[]>): Promise<Run> {
  let records = 0;
  const started = performance.now();
  for await (const page of stream()) records += page.length;
  return { ms: performance.now() - started, records };
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

function bareStream(baseUrl: string, agent: Agent): () => AsyncIterable<unknown[]> {
  const fetchPage = (offset: number) =>
    new Promise<unknown[]>((resolve, reject) => {
      const url = `${baseUrl}/active-offer-requests?limit=${PAGE}&offset=${offset}`;
      get(url, { agent, headers: { authorization: KEY } }, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown[]));
        res.on('error', reject);
      }).on('error', reject);
    });
  return async function* () {
    for (let offset = 0; ; offset += PAGE) {
      const page = await fetchPage(offset);
      if (page.length > 0) yield page;
      if (page.length < PAGE) return;
    }
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const { server, bytes } = pageServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  // The default limit (10 requests per second) would pace 100 pages over 10 s by design; the
  // bench measures the client's cost, so it gives the brokerage a limit the run never reaches.
  const client = new CashOfferClientFactory().create({
    brokerageId: 'bench',
    baseUrl,
    apiKey: KEY,
    rateLimit: { requests: 10_000, perMs: 1000 },
  });
  const clientRuns: Run[] = [];
  const bareRuns: Run[] = [];
  let clientPeak = 0;
  let barePeak = 0;
  try {
    // One warm-up of each, then alternate so both see the same machine load.
    await time(bareStream(baseUrl, agent));
    await time(() => client.streamActiveOfferRequests({ pageSize: PAGE }));
    for (let round = 0; round < ROUNDS; round++) {
      bareRuns.push(await time(bareStream(baseUrl, agent)));
      clientRuns.push(await time(() => client.streamActiveOfferRequests({ pageSize: PAGE })));
    }
    clientPeak = await peakRetainedMb(() => client.streamActiveOfferRequests({ pageSize: PAGE }));
    barePeak = await peakRetainedMb(bareStream(baseUrl, agent));
  } finally {
    client.close();
    agent.destroy();
    server.closeAllConnections();
    server.close();
  }
  for (const run of [...clientRuns, ...bareRuns])
    if (run.records !== TOTAL) throw new Error(`a run streamed ${run.records} records instead of ${TOTAL}`);

  const clientMs = median(clientRuns.map((r) => r.ms));
  const bareMs = median(bareRuns.map((r) => r.ms));
  const overhead = ((clientMs - bareMs) / bareMs) * 100;
  const row = (name: string, ms: number, peak: number) =>
    `${name.padEnd(34)} ${ms.toFixed(0).padStart(6)} ms   ${(TOTAL / (ms / 1000)).toFixed(0).padStart(7)} records/s   peak retained heap +${peak.toFixed(2)} MB`;
  console.log(
    `Streaming ${TOTAL} active offer requests, pages of ${PAGE} (${mb(bytes).toFixed(1)} MB of JSON in all)`,
  );
  console.log(`median of ${ROUNDS} rounds after one warm-up; retained heap measured in a separate pass`);
  console.log(row('CashOfferClient.streamActive...', clientMs, clientPeak));
  console.log(row('bare node:http keep-alive loop', bareMs, barePeak));
  console.log(
    `client overhead: ${overhead.toFixed(1)} %   (target: under ${TARGET_OVERHEAD_PCT} %) ${overhead < TARGET_OVERHEAD_PCT ? 'OK' : 'MISSED'}`,
  );
  console.log(
    `peak heap target: about one page (${mb(bytes / (TOTAL / PAGE)).toFixed(2)} MB of JSON), far below the whole list (${mb(bytes).toFixed(1)} MB)`,
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
