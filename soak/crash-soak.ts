import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkSoak,
  decidedAtUnseeable,
  refusalsUnknowable,
  unseeableOffers,
  type Violation,
} from './soak-checks';
import { refusalCanBeSeen } from './readings-sweep';
import { clocksBusy, MOMENT_AHEAD_MS } from './soak-clocks';
import { waitUntil } from './soak-http';
import { SoakActors } from './soak-actors';
import {
  INBOX_BUSY,
  OUTBOX_BUSY,
  postgresLedger,
  sqliteLedger,
  type LedgerReader,
  type CounterGivenUp,
  type CounterRefusedAtMove,
  type ReconcilePass,
  type TaskCreateRow,
  type LedgerView,
} from './soak-ledger';
import {
  DaemonProcess,
  killedLife,
  runCli,
  SOAK_BROKERAGE,
  SOAK_FUB_API_KEY,
  type FubListings,
  startSimulators,
  applyCrmFaults,
  stopAll,
  writeDaemonConfig,
} from './soak-processes';
import { DEFAULT_OPERATOR, SoakOperator, type OperatorOptions } from './soak-operator';
import { SoakRandom } from './soak-random';
import { SoakService } from './soak-service';
import {
  checkTasks,
  latestMomentOf,
  unsentCounterAnsweredUntil,
  type DaemonLife,
  type TaskFacts,
  type TaskFigures,
} from './soak-task-checks';
import { historyWrong, type ExportedEntry } from './soak-history-checks';
import { SoakWorld } from './soak-world';
import { HubSpotSoakCrm, type CrmObject, type SoakCrm } from './soak-crm';
import type { SoakTask } from './soak-clocks';
import type { StoredCounter, StoredOffer, StoredRequest } from './soak-service';
import { FubSoakCrm, fubSellersPipeline } from './soak-crm-fub';
import { SOAK_HEARTBEAT_SECONDS, SoakWorkers, startSoakPostgres, type SoakPostgres } from './soak-workers';

// The deployments the soak runs against (docs/operations.md, "Crash soak"): one daemon on SQLite with
// HubSpot, one on SQLite with Follow Up Boss, three workers on one PostgreSQL ledger with HubSpot.
export const SOAK_SHAPES = ['sqlite-hubspot', 'sqlite-fub', 'postgres-workers'] as const;
export type SoakShape = (typeof SOAK_SHAPES)[number];

// The whole-daemon crash test (docs/operations.md, "Crash soak"): the simulators and the
// daemon from dist/ as child processes, a scripted agent and buyers over HTTP, the daemon SIGKILLed
// at seeded random moments and restarted, then settled and checked.

export interface CrashSoakOptions {
  shape?: SoakShape; // default sqlite-hubspot
  seed: number;
  kills: number;
  deals?: number; // listing deals the agent creates; default from the kill count
  minRunMs?: number; // running time before a kill, after the daemon answers /health/live
  maxRunMs?: number;
  settleTimeoutMs?: number;
  stableMs?: number; // how long nothing may change for the state to count as quiescent
  // How far past its start the settle waits for offer clock moments (soak-clocks.ts); CI-sized runs
  // wait less and judge fewer moments.
  clockMomentsAheadMs?: number;
  // The operator actor (soak/soak-operator.ts): `cli sync` runs of the daemon's jobs in processes of
  // their own, at seeded moments while the daemon lives. Default on, except with postgres-workers (the
  // operator's kill moment is read from a SQLite ledger; there the workers are each other's operator).
  operatorRuns?: boolean;
  // The operator's pacing (default DEFAULT_OPERATOR; the CI-sized runs use CI_OPERATOR).
  operator?: OperatorOptions;
  // The agent's second thoughts (SoakWorld.reconsider): sometimes rejecting an offer whose counter
  // still waits. On unless false (`SOAK_RECONSIDER=0`). The CI-sized runs went without it for one
  // session, while the three-worker run with it did not settle 4 times in 13: the decision consumer
  // moved a record again on every pass from a search that still showed its old stage
  // (docs/operations.md, "Crash soak").
  reconsider?: boolean;
  keepDir?: boolean; // keep the work dir (logs, ledger.jsonl, report) even when all went well
  log?: (line: string) => void;
}

export interface CrashSoakResult {
  shape: SoakShape;
  seed: number;
  kills: number;
  deals: number;
  lost: number;
  duplicate: number;
  undone: number;
  wrongState: number;
  counterAnswers: number; // counters the service shows accepted or rejected: the counter path ran
  tasks: TaskFigures; // the offer clocks' tasks (soak-task-checks.ts)
  settled: boolean;
  cliRuns: number; // operator CLI runs, 0 without the operator
  cliUnexpected: number; // failed, interrupted or crashed CLI runs (each one is a note)
  violations: Violation[];
  notes: string[];
  summary: string;
  dir: string;
  keptDir?: boolean; // kept on request (keepDir), whatever the outcome
}

// The CI-sized runs (test/e2e/crash) settle without waiting for clock moments much past the settle's
// start: the moments of the kill phase are judged, the full run judges the rest.
export const CI_CLOCK_MOMENTS_AHEAD_MS = 20_000;

// The CI-sized runs pace the operator slower than the full run (DEFAULT_OPERATOR: a round every 0.6
// to 3 s): each CLI run is a process of its own, about 2.6 s of CPU with its sync, on a 2-core
// machine shared with jest's other workers. The 30-kill HubSpot run made 35 CLI runs at the full pace
// (181 s of CPU in all) and 25 at a round every 2.5 to 6.5 s (155 s); this pace makes about 15.
export const CI_OPERATOR: OperatorOptions = { ...DEFAULT_OPERATOR, minGapMs: 4000, maxGapMs: 10_000 };

export function defaultDeals(kills: number): number {
  return kills === 0 ? 30 : Math.min(100, Math.max(10, Math.round(kills * 0.44)));
}

export async function runCrashSoak(options: CrashSoakOptions): Promise<CrashSoakResult> {
  const shape = options.shape ?? 'sqlite-hubspot';
  const o = {
    minRunMs: 200,
    maxRunMs: 3000,
    settleTimeoutMs: 180_000,
    // Workers: longer than the slowest takeover (6 missed beats and one more), so a job a worker
    // took just before it was killed, with no run recorded yet, cannot pass for settled.
    stableMs: shape === 'postgres-workers' ? 8 * SOAK_HEARTBEAT_SECONDS * 1000 : 8000,
    clockMomentsAheadMs: MOMENT_AHEAD_MS,
    log: () => undefined,
    ...options,
    operatorRuns: options.operatorRuns ?? shape !== 'postgres-workers',
    deals: options.deals ?? defaultDeals(options.kills),
  };
  const dir = mkdtempSync(join(tmpdir(), 'cos-crash-soak-'));
  const notes: string[] = [];
  const actors = new SoakActors('the scripted agent');
  let operator: SoakOperator | undefined;
  let postgres: SoakPostgres | undefined;
  try {
    if (o.operatorRuns && shape === 'postgres-workers')
      throw new Error('the operator actor runs beside one daemon on SQLite only');
    o.log(
      `shape ${shape}, seed ${o.seed}, kills ${o.kills}, deals ${o.deals}, operator ${o.operatorRuns ? 'on' : 'off'}; work dir ${dir}`,
    );
    const sim = await startSimulators(dir);
    let crm: SoakCrm = new HubSpotSoakCrm(sim);
    let fubListings: FubListings | undefined;
    if (shape === 'sqlite-fub') {
      const sellers = await fubSellersPipeline(sim.fubUrl, SOAK_FUB_API_KEY);
      fubListings = { pipelineId: sellers.sellersPipelineId, triggerStageId: sellers.triggerStageId };
      crm = new FubSoakCrm({ url: sim.fubUrl, apiKey: SOAK_FUB_API_KEY, ...sellers });
    }
    const env = await writeDaemonConfig(dir, sim, fubListings);
    let ledgerReader: LedgerReader = sqliteLedger(env.LEDGER_PATH!);
    if (shape === 'postgres-workers') {
      postgres = await startSoakPostgres();
      Object.assign(env, {
        LEDGER_URL: postgres.url,
        WORKER_HEARTBEAT_SECONDS: String(SOAK_HEARTBEAT_SECONDS),
      });
      ledgerReader = postgresLedger(postgres.url);
    }
    const setup = await runCli(['setup-crm', '--brokerage', SOAK_BROKERAGE], env);
    if (setup.code !== 0) throw new Error(`setup-crm failed: ${setup.output}`);
    await applyCrmFaults(sim);

    const service = new SoakService(
      sim,
      new SoakRandom(o.seed ^ 0x5eed02),
      new SoakRandom(o.seed ^ 0x5eed04),
      new SoakRandom(o.seed ^ 0x5eed09),
    );
    const world = new SoakWorld(
      crm,
      new SoakRandom(o.seed ^ 0x5eed01),
      service,
      o.deals,
      new SoakRandom(o.seed ^ 0x5eed05),
      new SoakRandom(o.seed ^ 0x5eed06),
      o.reconsider !== false ? new SoakRandom(o.seed ^ 0x5eed07) : undefined,
      new SoakRandom(o.seed ^ 0x5eed08),
    );
    const killRandom = new SoakRandom(o.seed);
    await world.loadStages();
    const workers = shape === 'postgres-workers' ? await SoakWorkers.create(env, dir) : undefined;
    const daemon = workers ? undefined : new DaemonProcess(env, join(dir, 'daemon.log'));
    if (o.operatorRuns && daemon) {
      // Once the daemon has made its ledger: the CLI never creates one, and says so (exit 1) before.
      const ledgerPath = env.LEDGER_PATH!;
      operator = new SoakOperator(
        env,
        new SoakRandom(o.seed ^ 0x5eed03),
        () => daemon.running && existsSync(ledgerPath),
        o.operator ?? DEFAULT_OPERATOR,
      );
      operator.start();
    }
    let kills = 0;
    // The single daemon's lives, for the task check (soak-task-checks.ts).
    const lives: DaemonLife[] = [];
    // Deals are spread over the first 60 % of the kills, so decisions meet kills too.
    const allowed = (): number =>
      o.kills === 0 ? o.deals : Math.ceil((o.deals * (kills + 1)) / Math.max(1, Math.floor(o.kills * 0.6)));
    actors.start(async () => {
      await world.agentTick(allowed());
      const [offers, counters] = [await service.offers(), await service.counters()];
      await service.buyersTick(world.listings, (requestId) => world.pendingIn(requestId, offers, counters));
    }, 250);
    const actorsAlive = (): void => actors.alive();

    if (workers) {
      const runMs = { min: o.minRunMs, max: o.maxRunMs };
      const afterRound = (n: number): void => {
        kills = n;
        if (kills % 10 < 2)
          o.log(`${kills} kills; ${world.listings.size} deals, ${world.decisions.length} decisions`);
      };
      await workers.killUntil(o.kills, killRandom, runMs, notes, afterRound, actorsAlive);
    }
    while (daemon && kills < o.kills) {
      actorsAlive();
      const life = await killedLife(daemon, killRandom, { min: o.minRunMs, max: o.maxRunMs }, notes);
      if (life) lives.push(life);
      kills++;
      if (kills % 10 === 0)
        o.log(
          `${kills} kills; ${world.listings.size} deals, ${world.decisions.length} decisions` +
            (operator ? `, ${operator.runs} CLI runs` : ''),
        );
    }

    world.editsListAgents = false;
    if (workers) {
      await workers.startForSettle(notes);
    } else if (daemon) {
      daemon.start();
      await daemon.waitLive(60_000);
      lives.push({ fromMs: Date.now(), toMs: Infinity });
    }
    operator?.finishAfter(3, 1);
    o.log('last start; settling');
    await waitUntil(
      () => {
        actorsAlive();
        return world.allCreated;
      },
      'the agent to create and trigger every deal',
      o.settleTimeoutMs,
      250,
    );
    const settled = await settle(
      world,
      ledgerReader,
      { stableMs: o.stableMs, timeoutMs: o.settleTimeoutMs, clockMomentsAheadMs: o.clockMomentsAheadMs },
      actorsAlive,
      notes,
      () => (operator && !operator.finished ? 'operator CLI runs' : ''),
    );
    await operator?.stop();
    await actors.stop();
    actorsAlive();

    const ledger = await ledgerReader.read();
    writeFileSync(join(dir, 'ledger.jsonl'), await ledgerReader.dump());
    const [requests, offers, counters, deals, tasks] = await Promise.all([
      world.service.requests(),
      world.service.offers(),
      world.service.counters(),
      world.crmDeals(),
      world.crmTasks(),
    ]);
    await world.service.clearFaults();
    const listed = await world.service.listedStatuses();
    const readings = await world.service.specReadings();
    const createAnswerHasInventory = !readings.createAnswer.startsWith('id-only');
    const checkNotes: string[] = [];
    const updatesGivenUp = await world.service.updatesGivenUp();
    const passes = await ledgerReader.passes('offers-reconcile');
    const unseeable = unseeableOffers(offers, {
      expiredDropAndEventsOnce:
        readings.expiredOfferListedAs === 'dropped' && readings.eventDelivery === 'once',
      delivered: await world.service.offersDelivered(),
      passes,
    });
    const violations = checkSoak(world, {
      requests,
      offers,
      counters,
      deals,
      ledger,
      nowMs: Date.now(),
      listed,
      createAnswerHasInventory,
      activeListShowsStatus: readings.activeListShape !== 'declared',
      decidedAtListed: readings.offerDecidedAt !== 'null',
      counterPendingWord: readings.counterPendingWord,
      counterRefusedWord: readings.counterRefusedWord,
      countersAcceptable:
        readings.counteredOfferDecisions === 'accept-too' ||
        (readings.counteredOfferDecisions === 'as-listed' && readings.counteredOfferListedAs === 'active'),
      offersMayDropFromList:
        readings.expiredOfferListedAs === 'dropped' || readings.withdrawnOfferListedAs === 'dropped',
      ...(refusalCanBeSeen({ ...readings, counterRejectedCallback: 'none' })
        ? {}
        : { refusalsOnlyByUpdateLost: updatesGivenUp }),
      updatesGivenUp,
      refusalsUnknowable: refusalsUnknowable(counters, {
        refusalOnlyByMoveTo:
          readings.counterRejectedCallback === 'none' &&
          ['countered', 'counter_offered'].includes(readings.counteredOfferListedAs) &&
          (readings.counterRejectedOfferListedAs === 'active' ||
            readings.counterRejectedOfferListedAs === 'rejected')
            ? readings.counterRejectedOfferListedAs
            : undefined,
        passes,
        countersSeenWaiting: await ledgerReader.countersSeenWaiting(),
      }),
      unseeable,
      decidedAtUnseeable: decidedAtUnseeable(offers, counters, {
        expiredDrops: readings.expiredOfferListedAs === 'dropped',
        passes,
      }),
      notes: checkNotes,
    });
    const creates = await ledgerReader.taskCreates();
    const taskCheck = checkTasks(
      taskFacts(world, {
        requests,
        offers,
        deals,
        tasks,
        counters,
        passes,
        creates,
        countersGivenUp: await ledgerReader.countersGivenUp(),
        countersRefusedAtMove: await ledgerReader.countersRefusedAtMove(),
        ...(daemon ? { lives } : {}),
      }),
    );
    violations.push(...taskCheck.violations);
    // The decision history as the operator reads it: exported and verified by the CLI.
    const historyFile = join(dir, 'history.json');
    const exported = await runCli(['history', '--export', historyFile, '--brokerage', SOAK_BROKERAGE], env);
    const verified = await runCli(['history', '--verify', '--brokerage', SOAK_BROKERAGE], env);
    const entries =
      exported.code === 0 ? (JSON.parse(readFileSync(historyFile, 'utf8')) as ExportedEntry[]) : [];
    const historyCheck = historyWrong(entries, ledger.outbox, offers, counters, verified);
    if (exported.code !== 0)
      historyCheck.push({
        kind: 'history',
        record: 'export',
        detail: `history --export exited ${exported.code}: ${exported.output.trim()}`,
      });
    violations.push(...historyCheck);
    notes.push(
      ...checkNotes,
      ...outboxNotes(ledger),
      `${world.decisions.length} decisions: ${countKinds(world)}`,
      `counters at the service: ${countBy(counters.map((c) => c.counter_offer_status))}`,
      `decision history: ${entries.length} entries, exported and verified by the CLI`,
      listAgentEditsNote(world),
      `offers at the service, each checked for its record's state: ${countBy(offers.map((f) => f.offer_status))}`,
      taskCommandsNote(ledger, creates),
      putBackNote(dir),
      `CRM tasks: ${countBy(tasks.map((t) => `${t.key?.replace(/^\w+:\d+:/, '') ?? 'no key'} ${t.completed ? 'completed' : 'open'}`))}`,
    );
    if (operator)
      notes.push(operator.summary(), daemonSideNote(join(dir, 'daemon.log')), ...operator.findings);
    // The work dir is kept when something failed or on request, and removed otherwise; `cli status`
    // (a process of its own, seconds of CPU) is run for a kept dir only, on the settled ledger.
    const keep = violations.length > 0 || !settled || (operator?.unexpected ?? 0) > 0 || o.keepDir === true;
    if (keep) {
      const status = await runCli(['status', '--brokerage', SOAK_BROKERAGE], env);
      writeFileSync(join(dir, 'status.txt'), status.output);
      await world
        .crmWriteHistory()
        .then((history) => writeFileSync(join(dir, 'crm-writes.json'), JSON.stringify(history, null, 1)))
        .catch((error: unknown) => notes.push(`crm-writes.json not written: ${String(error)}`));
    }
    await daemon?.stop();
    await workers?.stopAll();
    await sim.stop();

    const count = (kind: Violation['kind']): number => violations.filter((v) => v.kind === kind).length;
    const triggered = [...world.listings.values()].filter((l) => l.triggered).length;
    const result: CrashSoakResult = {
      shape,
      seed: o.seed,
      kills,
      deals: triggered,
      lost: count('lost'),
      duplicate: count('duplicate'),
      undone: count('undone'),
      wrongState: count('wrong state'),
      counterAnswers: counters.filter((c) => c.counter_offer_status !== 'pending').length,
      tasks: taskCheck.figures,
      settled,
      cliRuns: operator?.runs ?? 0,
      cliUnexpected: operator?.unexpected ?? 0,
      violations,
      notes,
      summary:
        `kills ${kills}, deals ${triggered}, lost ${count('lost')}, duplicate ${count('duplicate')}, undone ${count('undone')}, wrong state ${count('wrong state')}; ` +
        taskLine(taskCheck.figures),
      dir,
      keptDir: o.keepDir === true,
    };
    writeFileSync(join(dir, 'report.txt'), formatReport(result));
    if (!keep) rmSync(dir, { recursive: true, force: true });
    return result;
  } finally {
    await actors.stop();
    stopAll();
    await operator?.stop();
    await postgres?.stop().catch(() => undefined);
  }
}

// Quiescent: nothing the daemon works on by itself is left in the ledger, an offers-reconcile pass
// has begun and succeeded since the service last changed, and neither the service, the CRM nor the
// ledger has changed for `stableMs` while the agent and the buyers keep looking.
async function settle(
  world: SoakWorld,
  ledgerReader: LedgerReader,
  {
    stableMs,
    timeoutMs,
    clockMomentsAheadMs,
  }: { stableMs: number; timeoutMs: number; clockMomentsAheadMs: number },
  actorsAlive: () => void,
  notes: string[],
  othersBusy: () => string,
): Promise<boolean> {
  let last = '';
  let since = Date.now();
  const settleStart = since;
  // When the service's part of the fingerprint last changed: an offer that expired (or was dropped)
  // while the only pass going hung on a fault and failed left nothing busy, and eight quiet seconds
  // later the check judged records no pass had yet had a chance to show (readings sweep 1649 run 3).
  let serviceChangedMs = since;
  let busy = '';
  // The last few changes (which part of the fingerprint, when), for a settle that times out.
  const changes: string[] = [];
  // When each run was first seen running: one seen for under `stableMs` is the pass in progress (a
  // soak's reconcile every 2 s can take longer than that, so one is nearly always running), not work
  // held up.
  const firstSeen = new Map<number, number>();
  try {
    await waitUntil(
      async () => {
        actorsAlive();
        const ledger = await ledgerReader.read();
        const print = await fingerprint(world, ledger);
        if (print !== last) {
          changes.push(`${new Date().toISOString().slice(11, 23)} ${changedPart(last, print)}`);
          if (changes.length > 5) changes.shift();
          if (serviceFacts(print) !== serviceFacts(last)) serviceChangedMs = Date.now();
          last = print;
          since = Date.now();
        }
        busy = [
          clocksBusy(await world.service.offers(), Date.now(), settleStart, clockMomentsAheadMs),
          ...ledger.outbox
            .filter((c) => OUTBOX_BUSY.includes(c.state))
            .map((c) => `outbox #${c.id} ${c.state}`),
          ...ledger.inbox
            .filter((e) => INBOX_BUSY.includes(e.status))
            .map((e) => `inbox #${e.id} ${e.status}`),
          // A run left running by a killed worker holds its (brokerage, job) until it is taken over:
          // a crm-changes run so held would otherwise let the state look settled with the agent's
          // last moves not yet read. One running for `stableMs` or longer is held up.
          ...heldRuns(ledger.running, firstSeen, Date.now(), stableMs),
          noPassSince(await ledgerReader.passes('offers-reconcile'), serviceChangedMs),
          othersBusy(),
        ]
          .filter(Boolean)
          .join(', ');
        return busy === '' && Date.now() - since >= stableMs;
      },
      'the daemon to settle',
      timeoutMs,
      500,
    );
    return true;
  } catch (error) {
    notes.push(
      `not settled: ${error instanceof Error ? error.message : String(error)}; still busy: ${busy || 'nothing'}; the last changes: ${changes.join(' | ')}`,
    );
    return false;
  }
}

// Busy until an offers-reconcile pass that began after `sinceMs` has succeeded.
export function noPassSince(passes: readonly ReconcilePass[], sinceMs: number): string {
  return passes.some((p) => p.startedMs > sinceMs)
    ? ''
    : 'no offers-reconcile pass since the service last changed';
}

// The service's parts of a fingerprint (requests, offers, counters).
function serviceFacts(print: string): string {
  return print ? JSON.stringify((JSON.parse(print) as unknown[]).slice(0, 3)) : '';
}

// The running runs seen running for `stableMs` or longer, each with how long; `firstSeen` is kept
// up to date (runs no longer running are dropped from it).
export function heldRuns(
  running: LedgerView['running'],
  firstSeen: Map<number, number>,
  nowMs: number,
  stableMs: number,
): string[] {
  const ids = new Set(running.map((r) => r.id));
  for (const id of firstSeen.keys()) if (!ids.has(id)) firstSeen.delete(id);
  const held: string[] = [];
  for (const r of running) {
    const since = firstSeen.get(r.id) ?? nowMs;
    firstSeen.set(r.id, since);
    const ageMs = nowMs - since;
    if (ageMs >= stableMs)
      held.push(`run #${r.id} ${r.job} of ${r.brokerage_id} running for ${Math.round(ageMs / 1000)} s`);
  }
  return held;
}

const FINGERPRINT_PARTS = [
  'requests',
  'offers',
  'counters',
  'CRM deals',
  'CRM tasks',
  'outbox',
  'inbox',
  'open errors',
];

// Which parts of the fingerprint differ, and the first item that does in each.
function changedPart(before: string, after: string): string {
  if (!before) return 'the first read';
  const [a, b] = [JSON.parse(before) as unknown[][], JSON.parse(after) as unknown[][]];
  return FINGERPRINT_PARTS.flatMap((name, i) => {
    const [x, y] = [a[i] ?? [], b[i] ?? []];
    if (JSON.stringify(x) === JSON.stringify(y)) return [];
    const n = Math.max(x.length, y.length);
    for (let k = 0; k < n; k++)
      if (JSON.stringify(x[k]) !== JSON.stringify(y[k])) return [`${name} ${differingFields(x[k], y[k])}`];
    return [name];
  }).join('; ');
}

// What differs between two fingerprint items ([id, fields] or a tuple): the item's id and each
// differing field's value before and after (a whole deal's properties are too long to show).
export function differingFields(before: unknown, after: unknown): string {
  const items = [before, after].map((item): unknown[] | undefined =>
    Array.isArray(item) ? item : undefined,
  );
  const id = JSON.stringify(items[0]?.[0] ?? items[1]?.[0] ?? null);
  const fieldsOf = (item: unknown): Record<string, unknown> | undefined => {
    const last: unknown = Array.isArray(item) ? (item as unknown[]).at(-1) : undefined;
    return last !== null && typeof last === 'object' && !Array.isArray(last)
      ? (last as Record<string, unknown>)
      : undefined;
  };
  const [a, b] = [fieldsOf(before), fieldsOf(after)];
  if (!a || !b) return `${id} (${JSON.stringify(before ?? null)} -> ${JSON.stringify(after ?? null)})`;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter(
    (k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]),
  );
  return `${id} (${keys.map((k) => `${k}: ${JSON.stringify(a[k] ?? null)} -> ${JSON.stringify(b[k] ?? null)}`).join(', ')})`;
}

async function fingerprint(world: SoakWorld, ledger: LedgerView): Promise<string> {
  const [requests, offers, counters, deals, tasks] = await Promise.all([
    world.service.requests(),
    world.service.offers(),
    world.service.counters(),
    world.crmDeals(),
    world.crmTasks(),
  ]);
  return JSON.stringify([
    requests.map((q) => [q.offer_request_id, q.offer_request_status, q.inventory_property_id]),
    offers.map((f) => [f.offer_id, f.offer_status]),
    counters.map((c) => [c.counter_offer_id, c.counter_offer_status]),
    deals.map((d) => [d.id, d.properties]),
    tasks.map((t) => [t.id, t.key, t.completed]),
    ledger.outbox.map((c) => [c.id, c.state]),
    ledger.inbox.map((e) => [e.id, e.status]),
    ledger.openErrors,
  ]);
}

// The task check's view of the run: this run's offers, when the agent moved each record, and the
// stage of each offer's one record.
function taskFacts(
  world: SoakWorld,
  seen: {
    requests: StoredRequest[];
    offers: StoredOffer[];
    deals: CrmObject[];
    tasks: SoakTask[];
    counters: StoredCounter[];
    passes: ReconcilePass[];
    creates: TaskCreateRow[];
    countersGivenUp: readonly CounterGivenUp[];
    countersRefusedAtMove: readonly CounterRefusedAtMove[];
    lives?: readonly DaemonLife[];
  },
): TaskFacts {
  const { requests, offers, deals, tasks, passes } = seen;
  const ours = new Set(
    requests
      .filter((q) => world.listings.has(String(q.offer_request_external_id)))
      .map((q) => q.offer_request_id),
  );
  // A counter never sent because its own expiry passed first (refused at the drain) answered nothing:
  // the offer is still the agent's to decide, and its tasks rightly stay open.
  const countered = new Set(seen.counters.map((c) => String(c.offer_id)));
  const notSent = (d: (typeof world.decisions)[number]) =>
    d.kind === 'counter' &&
    !countered.has(d.offerId) &&
    d.counterExpiresMs !== undefined &&
    d.counterExpiresMs <= Date.now();
  const movedAt = new Map<string, number>();
  const answeredForAWhile = new Map<string, { fromMs: number; toMs: number }[]>();
  for (const d of world.decisions) {
    if (!notSent(d)) {
      movedAt.set(d.offerId, Math.min(d.at, movedAt.get(d.offerId) ?? Infinity));
      continue;
    }
    answeredForAWhile.set(d.offerId, [
      ...(answeredForAWhile.get(d.offerId) ?? []),
      { fromMs: d.at, toMs: unsentCounterAnsweredUntil(d, seen.countersGivenUp, seen.countersRefusedAtMove) },
    ]);
  }
  const records = new Map<string, CrmObject[]>();
  for (const d of deals) {
    const id = d.properties.cash_offer_offer_id?.trim();
    if (id) records.set(id, [...(records.get(id) ?? []), d]);
  }
  const stageOf = new Map<string, string>();
  const recordMadeAt = new Map<string, number>();
  for (const [id, list] of records) {
    if (list.length === 1) stageOf.set(id, world.stageKeyOf(list[0].properties.dealstage));
    const made = list.map((d) => latestMomentOf(d.createdAt ?? '')).filter(Number.isFinite);
    if (made.length > 0) recordMadeAt.set(id, Math.min(...made));
  }
  return {
    offers: offers.filter((f) => ours.has(f.offer_request_id)),
    tasks,
    movedAt,
    answeredForAWhile,
    stageOf,
    recordMadeAt,
    nowMs: Date.now(),
    passes,
    creates: new Map(seen.creates.map((c) => [c.key, c])),
    ...(seen.lives ? { lives: seen.lives } : {}),
  };
}

// "tasks 14: duplicate 0, missing 0, skipped past expiry 2, left open 0; expired undecided 3, shown Expired 3"
export function taskLine(t: TaskFigures): string {
  return (
    `tasks ${t.tasks}: duplicate ${t.duplicate}, missing ${t.missing}, skipped past expiry ${t.skippedPastExpiry}, left open ${t.open}; ` +
    `expired undecided ${t.expiredUndecided}, shown Expired ${t.shownExpired}`
  );
}

// How the kills met the clocks' task commands: a command sent more than once was cut by a kill (or
// a failure) while its request was out, and was looked for (or safely repeated) before it was done;
// a create skipped made no task, its offer having run out before the drain sent it.
function taskCommandsNote(ledger: LedgerView, creates: readonly TaskCreateRow[]): string {
  const line = (operation: string): string => {
    const commands = ledger.outbox.filter((c) => c.operation === operation);
    return `${commands.length} ${operation} (${commands.filter((c) => c.attempts > 1).length} sent more than once`;
  };
  const skipped = creates.filter((c) => c.skipped !== null).length;
  return (
    `task commands: ${line('create_offer_task')}, ${skipped} skipped as their offer had run out), ` +
    `${line('complete_offer_task')})`
  );
}

function outboxNotes(ledger: LedgerView): string[] {
  const byState = new Map<string, number>();
  for (const c of ledger.outbox) byState.set(c.state, (byState.get(c.state) ?? 0) + 1);
  const notes = [`outbox: ${[...byState].map(([s, n]) => `${n} ${s}`).join(', ') || 'empty'}`];
  for (const c of ledger.outbox.filter((c) => c.state === 'unknown' || c.state === 'dead'))
    notes.push(`  outbox #${c.id} ${c.operation} ${c.record_ref} ${c.state}: ${c.last_error ?? ''}`);
  notes.push(`open record errors: ${ledger.openErrors.length}`);
  for (const e of ledger.openErrors)
    notes.push(`  ${e.record_kind} ${e.record_ref} ${e.field}: ${e.message}`);
  return notes;
}

// How often the daemon met the operator's runs: a cron tick skipped because a CLI run held the job,
// and a job taken over from a CLI run SIGKILLed mid-run (its claims recovered without a restart).
function daemonSideNote(logPath: string): string {
  let log = '';
  try {
    log = readFileSync(logPath, 'utf8');
  } catch {
    return 'daemon: no log';
  }
  const count = (pattern: RegExp): number => log.match(pattern)?.length ?? 0;
  return (
    `daemon: ${count(/in progress in another process/g)} cron runs skipped beside a CLI run, ` +
    `${count(/from a process that stopped/g)} jobs taken over from a dead CLI run`
  );
}

// How often a writer went over an agent's move and put it back (HeldStages.putBackOverwritten), from
// the daemon's and the workers' logs: the race the e2e tests stage, as it came up here.
function putBackNote(dir: string): string {
  let count = 0;
  for (const name of readdirSync(dir).filter((n) => /^(daemon|worker-\d+)\.log$/.test(n)))
    count += readFileSync(join(dir, name), 'utf8').match(/the agent's move is put back/g)?.length ?? 0;
  return `agent moves a writer went over, put back: ${count}`;
}

function countKinds(world: SoakWorld): string {
  const countered = new Set(world.decisions.filter((d) => d.kind === 'counter').map((d) => d.offerId));
  // A decision on an offer the agent countered before: its second thoughts (SoakWorld.reconsider),
  // a reject after a refused accept among them.
  const acceptedFirst = new Set<string>();
  return countBy(
    world.decisions.map((d) => {
      if (!countered.has(d.offerId) || d.kind === 'counter') return d.kind;
      if (d.kind === 'accept') {
        acceptedFirst.add(d.offerId);
        return 'accept of a countered offer';
      }
      return acceptedFirst.has(d.offerId) ? 'reject after a refused accept' : 'reject of a countered offer';
    }),
  );
}

function countBy(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n} ${k}`).join(', ') || 'none';
}

export function formatReport(r: CrashSoakResult): string {
  return [
    `shape ${r.shape}, seed ${r.seed} (replay: ${replayReadings()}SOAK_SHAPE=${r.shape} SOAK_SEED=${r.seed} SOAK_KILLS=${r.kills} npm run soak:crash)`,
    ...r.violations.map((v) => `${v.kind.padEnd(14)} ${v.record}: ${v.detail}`),
    ...r.notes.map((n) => `note: ${n}`),
    ...(r.settled ? [] : ['NOT SETTLED before the deadline']),
    r.violations.length > 0 || !r.settled || r.cliUnexpected > 0 || r.keptDir
      ? `work dir kept: ${r.dir}`
      : '',
    r.summary,
  ]
    .filter(Boolean)
    .join('\n');
}

export function replayReadings(): string {
  const readings = process.env.SOAK_SPEC_READINGS?.trim();
  const faults = process.env.SOAK_CASH_OFFER_FAULTS?.trim();
  const crmFaults = (['SOAK_HUBSPOT_FAULTS', 'SOAK_FUB_FAULTS'] as const)
    .map((name) => [name, process.env[name]?.trim()] as const)
    .filter(([, value]) => value)
    .map(([name, value]) => `${name}='${value}' `)
    .join('');
  return (
    (readings ? `SOAK_SPEC_READINGS='${readings}' ` : '') +
    (faults ? `SOAK_CASH_OFFER_FAULTS='${faults}' ` : '') +
    crmFaults
  );
}

// How many listing-agent edits the agent made, on how many deals, and how many set one back.
function listAgentEditsNote(world: SoakWorld): string {
  const edited = [...world.listings.values()].filter((l) => l.earlierListAgents.length > 0);
  const edits = edited.reduce((n, l) => n + l.earlierListAgents.length, 0);
  const back = edited.reduce(
    (n, l) =>
      n +
      [...l.earlierListAgents.slice(1), l.listAgent].filter((a, i) =>
        l.earlierListAgents.slice(0, i + 1).some((e) => e.email === a.email),
      ).length,
    0,
  );
  return `listing-agent edits: ${edits} on ${edited.length} deals (${back} back to an earlier agent), each checked at the service`;
}
