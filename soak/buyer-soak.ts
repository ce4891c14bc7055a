import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkBuyerSoak,
  IN_DOUBT,
  type BuyerSoakFigures,
  type LeadAsk,
  type ServiceLead,
  type ServiceListing,
} from './buyer-soak-checks';
import { FubBuyerCrm, HubSpotBuyerCrm, type BuyerSoakCrm } from './buyer-soak-crm';
import { fubSellersPipeline } from './soak-crm-fub';
import { replayReadings } from './crash-soak';
import type { Violation } from './soak-checks';
import { httpJson, waitUntil } from './soak-http';
import { SoakActors } from './soak-actors';
import { postgresLedger, sqliteLedger, type LedgerReader } from './soak-ledger';
import {
  applyCrmFaults,
  BUYER_SIDE_SCHEDULES,
  DaemonProcess,
  killedLife,
  PARTNER_CASH_OFFER_KEY,
  runCli,
  SOAK_BROKERAGE,
  SOAK_FUB_API_KEY,
  startSimulators,
  stopAll,
  writeDaemonConfig,
} from './soak-processes';
import { SoakRandom } from './soak-random';
import { SOAK_HEARTBEAT_SECONDS, SoakWorkers, startSoakPostgres, type SoakPostgres } from './soak-workers';

// The buyer side's crash soak (docs/operations.md, "Buyer soak"): a partner brokerage's daemon from
// dist/ mirrors the marketplace into HubSpot or Follow Up Boss every two seconds while other listing agents' listings
// come, go and come back at the service, and a buyer agent flags contacts to be submitted as leads
// on listings they see; the daemon is SIGKILLed at seeded random moments and restarted, then settled
// and checked from outside (buyer-soak-checks.ts): one record per listing showing what the service
// lists, every lead sent at most once and shown on its contact (or said there to be in doubt).

// The buyer side in each deployment the daemon ships: one daemon on SQLite with either CRM, or three
// workers on one PostgreSQL ledger with HubSpot (soak-workers.ts), random ones killed.
export const BUYER_SOAK_SHAPES = ['sqlite-hubspot', 'sqlite-fub', 'postgres-workers'] as const;
export type BuyerSoakShape = (typeof BUYER_SOAK_SHAPES)[number];

export interface BuyerSoakOptions {
  shape?: BuyerSoakShape; // default sqlite-hubspot
  seed: number;
  kills: number;
  listings?: number; // other agents' listings at the start (default 30)
  asks?: number; // contacts the agent flags (default from the kill count)
  minRunMs?: number; // running time before a kill, after the daemon answers /health/live
  maxRunMs?: number;
  settleTimeoutMs?: number;
  stableMs?: number;
  keepDir?: boolean;
  log?: (line: string) => void;
}

export interface BuyerSoakResult {
  shape: BuyerSoakShape;
  seed: number;
  kills: number;
  asks: number;
  marketChanges: number;
  figures: BuyerSoakFigures;
  settled: boolean;
  violations: Violation[];
  notes: string[];
  summary: string;
  dir: string;
}

// Other listing agents: the partner sees their listings in the marketplace, never its own.
const OTHER_AGENTS = ['sandbox-agent-key', 'sandbox-agent2-key'];
// How a listing leaves the active list (docs/sandbox.md, control routes), and how it comes back.
const ENDINGS = ['under_contract', 'expired', 'denied'];
const WEEK_MS = 7 * 24 * 3600_000;

export function defaultAsks(kills: number): number {
  return Math.min(80, Math.max(8, Math.round(kills * 0.5)));
}

// The other agents' side of the service: listings approved, taken off the list and renewed, each a
// change the mirror must follow.
class SoakMarket {
  changes = 0;
  lastChangeMs = 0;

  constructor(
    private readonly controlUrl: string,
    private readonly random: SoakRandom,
  ) {}

  async seed(count: number): Promise<void> {
    await this.control('POST', '/seed-active', { count, ownerKey: this.random.pick(OTHER_AGENTS) });
    this.changed();
  }

  async tick(): Promise<void> {
    const roll = this.random.next();
    if (roll < 0.2) return this.seed(this.random.int(1, 2));
    const requests = await this.listings();
    if (roll < 0.4) {
      const active = requests.filter((r) => r.offer_request_status === 'active');
      if (active.length === 0) return;
      const ending = this.random.pick(ENDINGS);
      await this.move(this.random.pick(active).offer_request_id, { offer_request_status: ending });
    } else if (roll < 0.5) {
      const ended = requests.filter((r) => r.offer_request_status === 'expired');
      if (ended.length === 0) return;
      await this.move(this.random.pick(ended).offer_request_id, {
        offer_request_status: 'active',
        offer_request_expires_at: new Date(Date.now() + WEEK_MS).toISOString(),
      });
    }
  }

  listings(): Promise<ServiceListing[]> {
    return this.control<ServiceListing[]>('GET', '/offer-requests');
  }

  leads(): Promise<ServiceLead[]> {
    return this.control<ServiceLead[]>('GET', '/buyer-leads?limit=100000');
  }

  private async move(id: number, body: Record<string, string>): Promise<void> {
    await this.control('POST', `/offer-requests/${id}/status`, body);
    this.changed();
  }

  private changed(): void {
    this.changes++;
    this.lastChangeMs = Date.now();
  }

  private control<T>(method: string, path: string, body?: unknown): Promise<T> {
    return httpJson<T>(method, `${this.controlUrl}${path}`, body);
  }
}

// The buyer agent: picks a listing it sees as active in the CRM, makes a buyer contact (now and then
// one without an email or a phone, which no lead can be made from), associates it and ticks "submit
// as buyer lead"; sometimes ticks it again on a contact already asked for.
class BuyerAgent {
  readonly asks: LeadAsk[] = [];

  constructor(
    private readonly crm: BuyerSoakCrm,
    private readonly random: SoakRandom,
  ) {}

  // `again`: whether it may tick the box again on a contact already asked for (not while settling).
  async tick(allowed: number, again: boolean): Promise<void> {
    if (again && this.asks.length > 0 && this.random.chance(0.1)) {
      await this.crm.flag(this.random.pick(this.asks).contactId);
      return;
    }
    if (this.asks.length >= allowed) return;
    const listed = (await this.crm.marketplaceRecords()).filter(
      (r) => r.stage === 'active' && r.status === 'active',
    );
    if (listed.length === 0) return;
    const record = this.random.pick(listed);
    const n = this.asks.length + 1;
    const roll = this.random.next();
    const complete = roll < 0.9;
    const contactId = await this.crm.createBuyer({
      firstname: 'Bea',
      lastname: `Buyer${n}`,
      ...(roll < 0.8 ? { email: `soak-buyer-${n}@example.com` } : {}),
      ...(roll >= 0.75 && roll < 0.9 ? { phone: `+1555010${String(n).padStart(4, '0')}` } : {}),
    });
    await this.crm.associate(contactId, record.id);
    await this.crm.flag(contactId);
    this.asks.push({ contactId, lastName: `Buyer${n}`, requestId: record.requestId, complete });
  }
}

export async function runBuyerSoak(options: BuyerSoakOptions): Promise<BuyerSoakResult> {
  const shape = options.shape ?? 'sqlite-hubspot';
  const o = {
    shape,
    listings: 30,
    minRunMs: 200,
    maxRunMs: 3000,
    settleTimeoutMs: 180_000,
    // Workers: longer than the slowest takeover of a killed worker's job (crash-soak.ts).
    stableMs: shape === 'postgres-workers' ? 8 * SOAK_HEARTBEAT_SECONDS * 1000 : 8000,
    log: () => undefined,
    ...options,
    asks: options.asks ?? defaultAsks(options.kills),
  };
  const dir = mkdtempSync(join(tmpdir(), 'cos-buyer-soak-'));
  const notes: string[] = [];
  const actors = new SoakActors('the buyer agent');
  let postgres: SoakPostgres | undefined;
  try {
    o.log(`shape ${o.shape}, seed ${o.seed}, kills ${o.kills}, asks ${o.asks}; work dir ${dir}`);
    const sim = await startSimulators(dir);
    // On Follow Up Boss the brokerage file names a listings pipeline too (the seller side's), found
    // by name as an admin would.
    const fub = o.shape === 'sqlite-fub' ? await fubSellersPipeline(sim.fubUrl, SOAK_FUB_API_KEY) : undefined;
    const fubListings = fub && { pipelineId: fub.sellersPipelineId, triggerStageId: fub.triggerStageId };
    const env = await writeDaemonConfig(dir, sim, fubListings, {
      cashOfferKey: PARTNER_CASH_OFFER_KEY,
      schedules: BUYER_SIDE_SCHEDULES,
    });
    let ledger: LedgerReader = sqliteLedger(env.LEDGER_PATH!);
    if (o.shape === 'postgres-workers') {
      postgres = await startSoakPostgres();
      Object.assign(env, {
        LEDGER_URL: postgres.url,
        WORKER_HEARTBEAT_SECONDS: String(SOAK_HEARTBEAT_SECONDS),
      });
      ledger = postgresLedger(postgres.url);
    }
    const setup = await runCli(['setup-crm', '--brokerage', SOAK_BROKERAGE], env);
    if (setup.code !== 0) throw new Error(`setup-crm failed: ${setup.output}`);
    await applyCrmFaults(sim);
    const crm: BuyerSoakCrm = fub ? new FubBuyerCrm(sim) : new HubSpotBuyerCrm(sim);
    await crm.loadStages();
    const market = new SoakMarket(sim.controlUrl, new SoakRandom(o.seed ^ 0xb0e1));
    const agent = new BuyerAgent(crm, new SoakRandom(o.seed ^ 0xb0e2));
    const killRandom = new SoakRandom(o.seed);
    await market.seed(o.listings);

    let kills = 0;
    let marketOpen = true;
    // Asks are spread over the first 60 % of the kills, so lead sends meet kills too.
    const allowed = (): number =>
      o.kills === 0
        ? o.asks
        : Math.min(o.asks, Math.ceil((o.asks * (kills + 1)) / Math.max(1, Math.floor(o.kills * 0.6))));
    actors.start(async () => {
      if (marketOpen) await market.tick();
      await agent.tick(allowed(), marketOpen);
    }, 500);
    const actorsAlive = (): void => actors.alive();

    const workers = o.shape === 'postgres-workers' ? await SoakWorkers.create(env, dir) : undefined;
    const daemon = workers ? undefined : new DaemonProcess(env, join(dir, 'daemon.log'));
    const progress = (): void =>
      o.log(`${kills} kills; ${agent.asks.length} asks, ${market.changes} market changes`);
    if (workers) {
      const runMs = { min: o.minRunMs, max: o.maxRunMs };
      const afterRound = (n: number): void => {
        kills = n;
        if (kills % 10 < 2) progress();
      };
      await workers.killUntil(o.kills, killRandom, runMs, notes, afterRound, actorsAlive);
    }
    while (daemon && kills < o.kills) {
      actorsAlive();
      await killedLife(daemon, killRandom, { min: o.minRunMs, max: o.maxRunMs }, notes);
      kills++;
      if (kills % 10 === 0) progress();
    }
    marketOpen = false;
    if (workers) {
      await workers.startForSettle(notes);
    } else {
      daemon!.start();
      await daemon!.waitLive(60_000);
    }
    o.log('last start; settling');
    await waitUntil(
      () => {
        actorsAlive();
        return agent.asks.length >= o.asks;
      },
      'the agent to make every ask',
      o.settleTimeoutMs,
      250,
    );
    const settled = await settle(crm, market, ledger, o, actorsAlive, notes);
    await actors.stop();
    actorsAlive();

    const [listings, leads, records, contacts, view] = [
      await market.listings(),
      await market.leads(),
      await crm.allMarketplaceRecords(),
      await crm.contacts(),
      await ledger.read(),
    ];
    writeFileSync(join(dir, 'ledger.jsonl'), await ledger.dump());
    const { violations, figures } = checkBuyerSoak({ listings, leads, records, asks: agent.asks, contacts });
    notes.push(
      `marketplace: ${records.length} records, ${listings.filter((l) => l.offer_request_status === 'active').length} listings active at the service, ${market.changes} market changes`,
      `leads: ${agent.asks.length} asks, ${leads.length} at the service; shown ${figures.leadsShown}, in doubt ${figures.leadsInDoubt}, refused or unsendable ${figures.leadsRefused} (${figures.leadsDeclined} declined by the daemon as incomplete, ${figures.leadsUnnamed} on listings the service gave no request id for)`,
      `outbox: ${countBy(view.outbox.map((c) => `${c.operation} ${c.state}`))}`,
    );
    const keep = violations.length > 0 || !settled || o.keepDir === true;
    if (keep) {
      const status = await runCli(['status', '--brokerage', SOAK_BROKERAGE], env);
      writeFileSync(join(dir, 'status.txt'), status.output);
    }
    await (workers ? workers.stopAll() : daemon!.stop());
    await sim.stop();
    const count = (kind: Violation['kind']): number => violations.filter((v) => v.kind === kind).length;
    const result: BuyerSoakResult = {
      shape: o.shape,
      seed: o.seed,
      kills,
      asks: agent.asks.length,
      marketChanges: market.changes,
      figures,
      settled,
      violations,
      notes,
      summary:
        `kills ${kills}, listings ${records.length}, asks ${agent.asks.length}, ` +
        `lost ${count('lost')}, duplicate ${count('duplicate')}, wrong state ${count('wrong state')}`,
      dir,
    };
    writeFileSync(join(dir, 'report.txt'), formatBuyerReport(result, keep));
    if (!keep) rmSync(dir, { recursive: true, force: true });
    return result;
  } finally {
    await actors.stop();
    stopAll();
    await postgres?.stop().catch(() => undefined);
  }
}

// Settled: the outbox holds nothing the daemon still works on by itself (a lead whose answer was
// lost stays `unknown` for the operator, the service having no lead lookup, once its contact says
// so: before, a settle right after such a loss judged the contact before it was told), a marketplace pass that
// began after the market's last change has read every page, and neither the CRM nor the ledger has
// changed for `stableMs`.
async function settle(
  crm: BuyerSoakCrm,
  market: SoakMarket,
  ledger: LedgerReader,
  o: { stableMs: number; settleTimeoutMs: number },
  actorsAlive: () => void,
  notes: string[],
): Promise<boolean> {
  let last = '';
  let since = Date.now();
  let busy = '';
  try {
    await waitUntil(
      async () => {
        actorsAlive();
        const view = await ledger.read();
        const contacts = await crm.contacts();
        const print = JSON.stringify([
          await crm.allMarketplaceRecords(),
          [...contacts.values()],
          view.outbox.map((c) => [c.id, c.state]),
        ]);
        if (print !== last) {
          last = print;
          since = Date.now();
        }
        const passes = await ledger.passes('marketplace');
        // A lead whose answer was lost stays `unknown` for the operator, once its contact says so (the
        // drain's next look at it, up to half a minute after the loss).
        const untold = (ref: string): boolean =>
          !IN_DOUBT.test(contacts.get(ref.replace(/^contact:/, ''))?.error ?? '');
        busy = [
          ...view.outbox
            .filter(
              (c) =>
                ['pending', 'sending', 'failed'].includes(c.state) ||
                (c.state === 'unknown' && untold(c.record_ref)),
            )
            .map((c) => `outbox #${c.id} ${c.state}`),
          passes.some((p) => p.startedMs > market.lastChangeMs)
            ? ''
            : 'no marketplace pass since the last market change',
        ]
          .filter(Boolean)
          .join(', ');
        return busy === '' && Date.now() - since >= o.stableMs;
      },
      'the daemon to settle',
      o.settleTimeoutMs,
      500,
    );
    return true;
  } catch (error) {
    notes.push(
      `not settled: ${error instanceof Error ? error.message : String(error)}; still busy: ${busy || 'nothing'}`,
    );
    return false;
  }
}

function countBy(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([v, n]) => `${n} ${v}`).join(', ') || 'none';
}

export function formatBuyerReport(r: BuyerSoakResult, keptDir = false): string {
  return [
    `buyer soak, shape ${r.shape}, seed ${r.seed} (replay: ${replayReadings()}SOAK_SHAPE=${r.shape} SOAK_SEED=${r.seed} SOAK_KILLS=${r.kills} npm run soak:buyer)`,
    ...r.violations.map((v) => `${v.kind.padEnd(14)} ${v.record}: ${v.detail}`),
    ...r.notes.map((n) => `note: ${n}`),
    ...(r.settled ? [] : ['NOT SETTLED before the deadline']),
    keptDir || r.violations.length > 0 || !r.settled ? `work dir kept: ${r.dir}` : '',
    r.summary,
  ]
    .filter(Boolean)
    .join('\n');
}
