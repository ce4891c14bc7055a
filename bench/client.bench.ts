import './simulators-logging';
import axios, { AxiosInstance } from 'axios';
import { fork, spawnSync } from 'node:child_process';
import { Agent, IncomingMessage, Server, createServer, get } from 'node:http';
import { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { CashOfferClientFactory } from '../src/cash-offer';
import { CashOfferTransport } from '../src/cash-offer/cash-offer.transport';
import type { ActiveOfferRequest } from '../src/cash-offer/schema';
import { startCashOfferSandbox } from '../sandbox/cash-offer';

// Streams 10,000 active offer requests (pages of 100) through CashOfferClient and through a bare
// node:http keep-alive loop against the same server, so the difference is the client's own cost
// (transport, validation, rate limiter, retry, breaker). The servers run in a child process, as
// the service is remote: the figures are the daemon side's alone. Two more loops split the cost:
// the client's transport alone (axios, tuned), and axios with its defaults on a keep-alive agent,
// to show what the tuning buys (docs/cash-offer-client.md, "Transport").
const TOTAL = 10_000;
const PAGE = 100;
// Page requests a stream makes: the first page, then PAGE - 1 new items a page, then the last alone.
const PAGE_REQUESTS = Math.ceil((TOTAL - 1) / (PAGE - 1)) + 1;
const ROUNDS = 15;
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

// Pages serialised once, answered with no work: the harshest ratio for any client.
function pageServer(): { server: Server; bytes: number } {
  const pages = new Map<number, Buffer>();
  let bytes = 0;
  // At the offsets the client asks: each page starts at the last item of the one before.
  for (let offset = 0; offset < TOTAL; offset += PAGE - 1) {
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

interface Target {
  name: string;
  baseUrl: string;
  key: string;
}

// The child: the sandbox seeded with TOTAL active requests, and the pre-serialised page server.
async function serversChild(): Promise<void> {
  const sandbox = await startCashOfferSandbox({ port: 0 });
  const seeded = await fetch(`${sandbox.controlUrl}/seed-active`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ count: TOTAL }),
  });
  if (seeded.status !== 201) throw new Error(`seeding the sandbox answered ${seeded.status}`);
  const { server, bytes } = pageServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const targets: Target[] = [
    {
      name: 'against the Cash Offer sandbox (the service as the daemon meets it)',
      baseUrl: sandbox.baseUrl,
      key: sandbox.agentKey,
    },
    {
      name: `against a server answering pre-serialised pages (${mb(bytes).toFixed(1)} MB of JSON; no server work, the harshest ratio)`,
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`,
      key: KEY,
    },
  ];
  process.send!(targets);
  process.on('disconnect', () => {
    server.closeAllConnections();
    server.close();
    void sandbox.close().then(() => process.exit(0));
  });
}

interface Run {
  ms: number;
  cpuMs: number;
  records: number;
}

const mb = (n: number) => n / 1024 / 1024;
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

// Each run starts from a collected heap, so none pays for the garbage the run before it left.
async function time(stream: () => AsyncIterable<unknown[]>): Promise<Run> {
  gc();
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

type FetchPage = (offset: number) => Promise<unknown[]>;

// Each way hands back a parsed page, as the client does.
const parsed =
  (fetchText: (offset: number) => Promise<string>): FetchPage =>
  async (offset) =>
    JSON.parse(await fetchText(offset)) as unknown[];

// Read as the client reads (src/cash-offer/anchored-pages.ts): each page from the last item of the
// one before, until that item alone, so every loop makes the same requests.
function pagesOf(fetchPage: FetchPage): () => AsyncIterable<unknown[]> {
  return async function* () {
    for (let offset = 0; ; offset += PAGE - 1) {
      const page = await fetchPage(offset);
      const fresh = offset === 0 ? page : page.slice(1);
      if (fresh.length === 0) return;
      yield fresh;
    }
  };
}

function bareStream(baseUrl: string, key: string, agent: Agent): () => AsyncIterable<unknown[]> {
  const fetchText = (offset: number) =>
    new Promise<string>((resolve, reject) => {
      const url = `${baseUrl}/active-offer-requests?limit=${PAGE}&offset=${offset}`;
      get(url, { agent, headers: { authorization: key } }, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      }).on('error', reject);
    });
  // A keep-alive socket the server closed just as it was reused: try that page once more.
  return pagesOf(
    parsed((offset) =>
      fetchText(offset).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ECONNRESET') throw e;
        return fetchText(offset);
      }),
    ),
  );
}

// The client's transport alone (axios, tuned), without validation, rate limit, retry or breaker.
function transportStream(transport: CashOfferTransport): () => AsyncIterable<unknown[]> {
  return pagesOf(
    parsed(
      async (offset) =>
        (
          await transport.send(
            { method: 'GET', path: '/active-offer-requests', query: { limit: PAGE, offset } },
            AbortSignal.timeout(10_000),
          )
        ).body,
    ),
  );
}

// axios as its documentation shows it, on a keep-alive agent: its JSON transforms (it parses the
// page), redirects through follow-redirects, its idle timeout, Node's default TCP keep-alive figure.
function axiosDefaults(baseUrl: string, agent: Agent): AxiosInstance {
  return axios.create({ baseURL: baseUrl, httpAgent: agent, timeout: 10_000 });
}

function axiosStream(http: AxiosInstance, key: string): () => AsyncIterable<unknown[]> {
  return pagesOf(
    async (offset) =>
      (
        await http.get<unknown[]>('/active-offer-requests', {
          params: { limit: PAGE, offset },
          headers: { Authorization: key },
        })
      ).data,
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (value: number, base: number) => ((value - base) / base) * 100;

interface Overhead {
  wall: number;
  cpu: number;
}

// Times every way of streaming against one server and prints them side by side.
async function compare(target: Target): Promise<Overhead> {
  const bareAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const axiosAgent = new Agent({ keepAlive: true, maxSockets: 16 });
  // The default limit (10 requests per second) would pace 100 pages over 10 s by design; the
  // bench measures the client's cost, so it gives the brokerage a limit the run never reaches.
  const client = new CashOfferClientFactory().create({
    brokerageId: 'bench',
    baseUrl: target.baseUrl,
    apiKey: target.key,
    rateLimit: { max: 10_000, intervalMs: 1000 },
  });
  const transport = new CashOfferTransport(target.baseUrl, target.key);
  const ways = {
    client: () => client.streamActiveOfferRequests({ pageSize: PAGE }),
    bare: bareStream(target.baseUrl, target.key, bareAgent),
    transport: transportStream(transport),
    axios: axiosStream(axiosDefaults(target.baseUrl, axiosAgent), target.key),
  };
  type Way = keyof typeof ways;
  const order = Object.keys(ways) as Way[];
  const runs: Record<Way, Run[]> = { client: [], bare: [], transport: [], axios: [] };
  const peaks = { client: 0, bare: 0 };
  try {
    for (const way of order) await time(ways[way]); // warm-up
    // Each round starts with a different way, so none always follows the same neighbour.
    for (let round = 0; round < ROUNDS; round++)
      for (let i = 0; i < order.length; i++) {
        const way = order[(round + i) % order.length];
        runs[way].push(await time(ways[way]));
      }
    peaks.client = await peakRetainedMb(ways.client);
    peaks.bare = await peakRetainedMb(ways.bare);
  } finally {
    client.close();
    transport.close();
    bareAgent.destroy();
    axiosAgent.destroy();
  }
  for (const way of order)
    for (const run of runs[way])
      if (run.records !== TOTAL)
        throw new Error(`a ${way} run streamed ${run.records} records, not ${TOTAL}`);

  const wall = (way: Way) => median(runs[way].map((r) => r.ms));
  const cpu = (way: Way) => median(runs[way].map((r) => r.cpuMs));
  const row = (label: string, way: Way, peak?: number) =>
    `  ${label.padEnd(40)} ${wall(way).toFixed(0).padStart(4)} ms (${(TOTAL / (wall(way) / 1000)).toFixed(0).padStart(6)} records/s), CPU ${cpu(way).toFixed(0).padStart(4)} ms` +
    (way === 'bare'
      ? ''
      : `   ${signed(pct(wall(way), wall('bare')))} % time, ${signed(pct(cpu(way), cpu('bare')))} % CPU`) +
    (peak === undefined ? '' : `, peak retained heap +${peak.toFixed(2)} MB`);
  console.log(`\n${target.name}`);
  console.log(row('CashOfferClient.streamActiveOfferRequests', 'client', peaks.client));
  console.log(row('bare node:http keep-alive loop', 'bare', peaks.bare));
  console.log(row("  the client's transport alone (axios)", 'transport'));
  console.log(row('  axios with its defaults', 'axios'));
  console.log(
    `  = ${((cpu('client') - cpu('bare')) / PAGE_REQUESTS).toFixed(3)} ms of the client's CPU per page request over the bare loop`,
  );
  return { wall: pct(wall('client'), wall('bare')), cpu: pct(cpu('client'), cpu('bare')) };
}

const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(1)}`;

async function main(): Promise<void> {
  console.log(
    `Streaming ${TOTAL} active offer requests, pages of ${PAGE}: medians of ${ROUNDS} rounds after a warm-up.`,
  );
  console.log('The servers run in a child process; time and CPU are the daemon side only. Retained heap');
  console.log('is measured in a separate pass that collects garbage while each page is held.');
  const child = fork(__filename, ['--servers'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const targets = await new Promise<Target[]>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Target[]));
      child.once('exit', (code) => reject(new Error(`the servers exited with ${code}`)));
    });
    const [sandbox, bareServer] = targets;
    const overhead = await compare(sandbox);
    await compare(bareServer);
    const ok = overhead.wall < TARGET_OVERHEAD_PCT;
    console.log(
      `\ntarget: the client's overhead over the bare loop against the sandbox under ${TARGET_OVERHEAD_PCT} %: ` +
        `${signed(overhead.wall)} % time ${ok ? 'OK' : 'MISSED'} (${signed(overhead.cpu)} % CPU)`,
    );
    const pageBytes = Buffer.byteLength(JSON.stringify(Array.from({ length: PAGE }, (_, i) => record(i))));
    console.log(
      `memory: about one page retained (${mb(pageBytes).toFixed(2)} MB of JSON), not the whole list`,
    );
  } finally {
    child.disconnect();
  }
}

if (process.argv.includes('--servers')) void serversChild();
// Rerun under --expose-gc so every run starts from a collected heap.
else if (!(globalThis as { gc?: unknown }).gc) {
  const child = spawnSync(process.execPath, ['--expose-gc', __filename], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
