import './simulators-logging';
import { ChildProcess, fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import autocannon from 'autocannon';
import { startCashOfferSandbox } from '../sandbox/cash-offer';

// npm run bench:sandbox — the sandbox (in a child process, so the load generator does not share
// its event loop) holds 100,000 active requests; we time single pages and then sustained load.
const SEEDED = 100_000;
const PAGE_SAMPLES = 500;
const LOAD_SECONDS = 10;
const TARGET_PAGE_MS = 5;
const TARGET_RPS = 2000;
const AGENT_KEY = 'bench-agent-key';
const BUYER_KEY = 'bench-buyer-key';

async function serve(): Promise<void> {
  const sandbox = await startCashOfferSandbox({
    accounts: [
      {
        key: AGENT_KEY,
        role: 'listing_agent',
        userId: '11111111-1111-4111-8111-111111111111',
        email: 'a@bench.example',
      },
      {
        key: BUYER_KEY,
        role: 'buyer',
        userId: '22222222-2222-4222-8222-222222222222',
        email: 'b@bench.example',
      },
    ],
  });
  process.send?.({ url: sandbox.url });
  process.once('disconnect', () => void sandbox.close().then(() => process.exit(0)));
}

function call(
  agent: Agent,
  url: string,
  method = 'GET',
  body?: unknown,
  key?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = {};
    if (payload) headers['content-type'] = 'application/json';
    if (key) headers.authorization = key;
    const req = request(url, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p99 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)];

async function bench(): Promise<void> {
  const child: ChildProcess = fork(__filename, ['--serve'], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve) =>
    child.once('message', (m: { url: string }) => resolve(m.url)),
  );
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    let t = performance.now();
    const seeded = await call(agent, `${url}/__control/seed-active`, 'POST', { count: SEEDED });
    console.log(
      `seeded ${SEEDED} active requests in ${(performance.now() - t).toFixed(0)} ms: ${seeded.text}`,
    );
    const pageUrl = `${url}/api/v2/active-offer-requests?limit=100`;
    for (let i = 0; i < 50; i++) await call(agent, pageUrl, 'GET', undefined, AGENT_KEY); // warm-up
    for (const [label, key, query] of [
      ['agent, default sort', AGENT_KEY, 'limit=100'],
      ['agent, offset 50,000', AGENT_KEY, 'limit=100&offset=50000'],
      ['buyer, sort by asking', BUYER_KEY, 'limit=100&sort=offer_request_asking.asc'],
    ] as const) {
      const times: number[] = [];
      let items = 0;
      for (let i = 0; i < PAGE_SAMPLES; i++) {
        t = performance.now();
        const res = await call(agent, `${url}/api/v2/active-offer-requests?${query}`, 'GET', undefined, key);
        times.push(performance.now() - t);
        if (res.status !== 200) throw new Error(`page answered ${res.status}: ${res.text}`);
        items = (JSON.parse(res.text) as unknown[]).length;
      }
      const m = median(times);
      console.log(
        `page of ${items} (${label}): median ${m.toFixed(2)} ms, p99 ${p99(times).toFixed(2)} ms ` +
          `(target < ${TARGET_PAGE_MS} ms: ${m < TARGET_PAGE_MS ? 'met' : 'MISSED'})`,
      );
    }
    const result = await autocannon({
      url: pageUrl,
      headers: { authorization: AGENT_KEY },
      connections: 10,
      pipelining: 1,
      duration: LOAD_SECONDS,
    });
    const rps = result.requests.average;
    console.log(
      `sustained GET /active-offer-requests?limit=100 with 10 connections for ${LOAD_SECONDS} s: ` +
        `${rps.toFixed(0)} requests/s (target > ${TARGET_RPS}: ${rps > TARGET_RPS ? 'met' : 'MISSED'}), ` +
        `latency median ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${result.non2xx} non-2xx, ${result.errors} errors`,
    );
  } finally {
    agent.destroy();
    child.disconnect();
  }
}

if (process.argv.includes('--serve')) void serve();
else
  bench().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
