import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../test/support/free-port';
import { soakClocksConfig } from './soak-clocks';
import { httpJson, pause, SoakFatalError, waitUntil } from './soak-http';
import type { SoakRandom } from './soak-random';

// The soak's child processes, all run from dist/ (`npm run build` first): the simulators, the daemon
// and its CLI. Every child started here is tracked and stopped by stopAll(), also on failure.

// Compiled, this file is dist/soak/soak-processes.js; under jest, soak/soak-processes.ts.
export const ROOT =
  basename(resolve(__dirname, '..')) === 'dist' ? resolve(__dirname, '..', '..') : resolve(__dirname, '..');
// The daemon and the CLI as shipped, one bundled file each (scripts/bundle.mjs).
const BIN = join(ROOT, 'dist', 'bin');
export const SOAK_BROKERAGE = 'soak';
export const SOAK_CRM_TOKEN = 'pat-soak-crash-0123456789';
export const CASH_OFFER_KEY = 'sandbox-agent-key';
const WEBHOOK_SECRET = 'whsec-soak-crash-0123456789abcdef';
export const LISTINGS_PIPELINE = 'default';
export const TRIGGER_STAGE = 'qualifiedtobuy';

function tryRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

const children = new Set<ChildProcess>();

export function stopAll(): void {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
}

interface Started {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startNode(script: string, env: NodeJS.ProcessEnv, logPath: string): Started {
  const log = openSync(logPath, 'a');
  const child = spawn(process.execPath, [script], { cwd: ROOT, env, stdio: ['ignore', log, log] });
  closeSync(log);
  children.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      done({ code, signal });
    }),
  );
  return { child, exited };
}

export interface SimulatorsProcess {
  cashOfferUrl: string; // the API base, /api/v2
  controlUrl: string; // the sandbox's /__control
  hubspotUrl: string;
  fubUrl: string; // the Follow Up Boss emulator's root (/v1, /__control)
  stop(): Promise<void>;
}

// The FUB emulator's account (sandbox/followupboss: FUB_EMULATOR_API_KEY, FUB_EMULATOR_SYSTEM_KEY).
export const SOAK_FUB_API_KEY = 'fub-soak-key-0123456789';
export const SOAK_FUB_SYSTEM = 'cash-offer-sync';
const SOAK_FUB_SYSTEM_KEY = 'fub-soak-system-key-0123456789';

// `node dist/sandbox/main.js`: the Cash Offer sandbox, the HubSpot and the Follow Up Boss emulators
// in one child, each on a free port (two soaks at once never meet on a default port).
export async function startSimulators(dir: string): Promise<SimulatorsProcess> {
  const [sandboxPort, hubspotPort, fubPort] = [await freePort(), await freePort(), await freePort()];
  const started = startNode(
    join(ROOT, 'dist', 'sandbox', 'main.js'),
    {
      PATH: process.env.PATH,
      TZ: 'UTC',
      SANDBOX_PORT: String(sandboxPort),
      HUBSPOT_EMULATOR_PORT: String(hubspotPort),
      HUBSPOT_EMULATOR_TOKEN: SOAK_CRM_TOKEN,
      FUB_EMULATOR_PORT: String(fubPort),
      FUB_EMULATOR_API_KEY: SOAK_FUB_API_KEY,
      FUB_EMULATOR_SYSTEM_KEY: SOAK_FUB_SYSTEM_KEY,
      // Another reading of what the spec leaves "not shown" (docs/sandbox.md, "Spec readings").
      SANDBOX_SPEC_READINGS: process.env.SOAK_SPEC_READINGS ?? '',
    },
    join(dir, 'simulators.log'),
  );
  const sim: SimulatorsProcess = {
    cashOfferUrl: `http://127.0.0.1:${sandboxPort}/api/v2`,
    controlUrl: `http://127.0.0.1:${sandboxPort}/__control`,
    hubspotUrl: `http://127.0.0.1:${hubspotPort}`,
    fubUrl: `http://127.0.0.1:${fubPort}`,
    stop: async () => {
      if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGTERM');
      await started.exited;
    },
  };
  await waitUntil(
    async () => {
      if (started.child.exitCode !== null)
        throw new SoakFatalError(`the simulators exited: ${tryRead(join(dir, 'simulators.log'))}`);
      await httpJson('GET', `${sim.controlUrl}/stats`);
      await httpJson('GET', `${sim.hubspotUrl}/__control/settings`);
      await httpJson('GET', `${sim.fubUrl}/__control/settings`);
      return true;
    },
    'the simulators to listen',
    30_000,
  );
  // The scripted agent shares the portal with the daemon; no portal limit, the daemon keeps its own.
  await httpJson('PUT', `${sim.hubspotUrl}/__control/settings`, { rateLimit: null, searchPerSecond: 1000 });
  await httpJson('PUT', `${sim.fubUrl}/__control/settings`, { rateLimit: null });
  // The service's own faults through the whole run (SOAK_CASH_OFFER_FAULTS: the body of PUT
  // /__control/faults, docs/sandbox.md), e.g. a service that answers some calls 429.
  const faults = process.env.SOAK_CASH_OFFER_FAULTS?.trim();
  if (faults) await httpJson('PUT', `${sim.controlUrl}/faults`, JSON.parse(faults) as unknown);
  return sim;
}

// The CRMs' own faults (SOAK_HUBSPOT_FAULTS, SOAK_FUB_FAULTS: the body of each emulator's PUT
// /__control/faults, docs/crm-hubspot.md and docs/crm-followupboss.md), set once setup-crm has made
// the CRM's fields, through the rest of the run. The scripted agent shares each account, so they are
// kept to the daemon's calls: HubSpot by a `match` of its endpoints (batch writes, task creates),
// which the agent's single-record calls never take; Follow Up Boss by `systemOnly: true` (the daemon
// calls as a registered system, the agent as a user).
export async function applyCrmFaults(sim: SimulatorsProcess): Promise<void> {
  const hubspot = process.env.SOAK_HUBSPOT_FAULTS?.trim();
  if (hubspot) await httpJson('PUT', `${sim.hubspotUrl}/__control/faults`, JSON.parse(hubspot) as unknown);
  const fub = process.env.SOAK_FUB_FAULTS?.trim();
  if (fub) await httpJson('PUT', `${sim.fubUrl}/__control/faults`, JSON.parse(fub) as unknown);
}

export interface SoakSchedules {
  crmChanges: string;
  offersReconcile: string;
  marketplace: string;
  outboxDrain: string;
  inboxDrain: string;
}

// Short cycles so a run moves fast; the marketplace mirror is not under test.
export const SOAK_SCHEDULES: SoakSchedules = {
  crmChanges: '* * * * * *',
  offersReconcile: '*/2 * * * * *',
  marketplace: '0 0 1 1 *',
  outboxDrain: '* * * * * *',
  inboxDrain: '* * * * * *',
};

// The broker who gets the clocks' escalations (soak-clocks.ts): an owner of the emulated HubSpot
// portal; the FUB emulator keeps no users, so any user id is taken. The listing agent: the HubSpot
// owner of the listing deals, the FUB agent assigned to the sellers (the agent's tasks are theirs).
export const SOAK_BROKER = { hubspot: '9001', followupboss: '9' } as const;
export const SOAK_AGENT = { hubspot: '64492917', followupboss: 7 } as const;

// The listings pipeline of a Follow Up Boss account (found by name before the brokerage file is written).
export interface FubListings {
  pipelineId: string;
  triggerStageId: string;
}

// The buyer soak's brokerage: a partner account (buyer leads are taken from buyers and partners only)
// whose marketplace mirror runs every two seconds (soak/buyer-soak.ts).
export const PARTNER_CASH_OFFER_KEY = 'sandbox-partner-key';
export const BUYER_SIDE_SCHEDULES: SoakSchedules = {
  ...SOAK_SCHEDULES,
  offersReconcile: '0 0 1 1 *',
  marketplace: '*/2 * * * * *',
};

// A real (non-simulated) brokerage pointing at the simulators, and the daemon's environment: on
// HubSpot, or on Follow Up Boss when `fub` names its listings pipeline. The seller side by default;
// `side` gives the account key and schedules of another (the buyer soak's partner).
export async function writeDaemonConfig(
  dir: string,
  sim: SimulatorsProcess,
  fub?: FubListings,
  side: { cashOfferKey: string; schedules: SoakSchedules } = {
    cashOfferKey: CASH_OFFER_KEY,
    schedules: SOAK_SCHEDULES,
  },
): Promise<NodeJS.ProcessEnv> {
  const configDir = join(dir, 'brokerages');
  mkdirSync(configDir, { recursive: true });
  // One port for the whole run: the webhook URL registered with the service stays valid across restarts.
  const port = await freePort();
  const adminPort = await freePort();
  writeFileSync(
    join(configDir, `${SOAK_BROKERAGE}.yaml`),
    stringify({
      id: SOAK_BROKERAGE,
      // The soak's buyers approve a request within seconds: one still unlisted a minute after it was
      // sent was never received, and is sent again.
      cashOffer: {
        baseUrl: sim.cashOfferUrl,
        apiKeyEnv: 'SOAK_CASH_OFFER_KEY',
        unknownOutcomeWindowMinutes: 1,
      },
      crm: fub
        ? {
            // The shipped defaults: change webhooks on (the emulator takes http on loopback).
            kind: 'followupboss',
            baseUrl: sim.fubUrl,
            tokenEnv: 'SOAK_CRM_TOKEN',
            system: SOAK_FUB_SYSTEM,
            systemKeyEnv: 'SOAK_FUB_SYSTEM_KEY',
            pipelines: { listings: fub },
          }
        : {
            kind: 'hubspot',
            baseUrl: sim.hubspotUrl,
            tokenEnv: 'SOAK_CRM_TOKEN',
            pipelines: { listings: { pipelineId: LISTINGS_PIPELINE, triggerStageId: TRIGGER_STAGE } },
          },
      webhooks: { publicBaseUrl: `http://127.0.0.1:${port}`, secretEnv: 'SOAK_WEBHOOK_SECRET' },
      schedules: side.schedules,
      offerClocks: soakClocksConfig(fub ? SOAK_BROKER.followupboss : SOAK_BROKER.hubspot),
    }),
  );
  return {
    PATH: process.env.PATH,
    TZ: 'UTC',
    CONFIG_DIR: configDir,
    LEDGER_PATH: join(dir, 'ledger.sqlite'),
    WEBHOOK_HOST: '127.0.0.1',
    WEBHOOK_PORT: String(port),
    ADMIN_HOST: '127.0.0.1',
    ADMIN_PORT: String(adminPort),
    LOG_LEVEL: 'info',
    SOAK_CASH_OFFER_KEY: side.cashOfferKey,
    SOAK_CRM_TOKEN: fub ? SOAK_FUB_API_KEY : SOAK_CRM_TOKEN,
    SOAK_FUB_SYSTEM_KEY,
    SOAK_WEBHOOK_SECRET: WEBHOOK_SECRET,
  };
}

export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(BIN, 'cli.js'), ...args],
      { cwd: ROOT, env, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

// A CLI process the soak may SIGKILL mid-run (the operator actor): tracked like the daemon, so
// stopAll() ends it too, with its stdout and stderr kept apart.
export interface CliProcess {
  pid: number;
  exited(): boolean;
  kill(): void;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

// Past the timeout the run is taken for hung and SIGKILLed (a finding): a drain run ends on its time
// budget (30 s, src/scheduler/drain-run.budget.ts) after the call in hand, which a throttled service
// can stretch by tens of seconds of waited-out 429s.
export function startCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): CliProcess {
  const child = spawn(process.execPath, [join(BIN, 'cli.js'), ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const timer = setTimeout(kill, timeoutMs);
  const done = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolveDone) =>
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolveDone({ code, signal, stdout, stderr });
    }),
  );
  return {
    pid: child.pid ?? 0,
    exited: () => child.exitCode !== null || child.signalCode !== null,
    kill,
    done,
  };
}

// The daemon from dist/, started, SIGKILLed and restarted over and over on one ledger and one port.
export class DaemonProcess {
  private current?: Started;
  starts = 0;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly logPath: string,
  ) {}

  get running(): boolean {
    return this.current !== undefined;
  }

  start(): void {
    if (this.current) throw new Error('the daemon is already running');
    this.starts++;
    writeFileSync(this.logPath, `--- start ${this.starts} at ${new Date().toISOString()}\n`, { flag: 'a' });
    this.current = startNode(join(BIN, 'daemon.js'), this.env, this.logPath);
  }

  // Live means it serves HTTP, after migrations, crash recovery and scheduling.
  async waitLive(timeoutMs: number): Promise<void> {
    const url = `http://127.0.0.1:${this.env.ADMIN_PORT}/health/live`;
    await waitUntil(
      async () => {
        if (!this.current) throw new SoakFatalError('the daemon is not running');
        if (this.current.child.exitCode !== null)
          throw new SoakFatalError(`the daemon exited at start ${this.starts}:\n${this.tail()}`);
        const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
        return res.ok;
      },
      'the daemon to answer /health/live',
      timeoutMs,
    );
  }

  async kill(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const running = this.current;
    if (!running) throw new Error('the daemon is not running');
    this.current = undefined;
    // Exited on its own (a crash at start): that is a finding, not a kill.
    if (running.child.exitCode !== null || running.child.signalCode !== null) return running.exited;
    running.child.kill('SIGKILL');
    return running.exited;
  }

  exitedEarly(): boolean {
    return this.current !== undefined && this.current.child.exitCode !== null;
  }

  async stop(): Promise<void> {
    const running = this.current;
    this.current = undefined;
    if (!running || running.child.exitCode !== null || running.child.signalCode !== null) return;
    running.child.kill('SIGTERM');
    const timer = setTimeout(() => running.child.kill('SIGKILL'), 30_000);
    await running.exited;
    clearTimeout(timer);
  }

  tail(lines = 20): string {
    return tryRead(this.logPath).split('\n').slice(-lines).join('\n');
  }
}

// One life of the single daemon under a soak: started, then SIGKILLed, 15 % of the time while it
// starts (migrations, crash recovery, webhook registration), otherwise once it is live and has run
// for a drawn time. The span it was live, when it got there; a daemon that exited by itself is a note.
export async function killedLife(
  daemon: DaemonProcess,
  random: SoakRandom,
  runMs: { min: number; max: number },
  notes: string[],
): Promise<{ fromMs: number; toMs: number } | undefined> {
  daemon.start();
  let liveFrom: number | undefined;
  if (random.chance(0.15)) {
    await pause(random.between(50, 1500));
  } else {
    await daemon.waitLive(60_000);
    liveFrom = Date.now();
    await pause(random.between(runMs.min, runMs.max));
  }
  if (daemon.exitedEarly())
    notes.push(`start ${daemon.starts}: the daemon exited by itself:\n${daemon.tail()}`);
  await daemon.kill();
  return liveFrom === undefined ? undefined : { fromMs: liveFrom, toMs: Date.now() };
}

// A soak script's entry: every process it started is stopped however it ends (a signal, an error:
// exit 2, or its own exit code).
export function runSoakScript(main: () => Promise<void>): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      stopAll();
      process.exit(130);
    });
  process.once('exit', stopAll);
  main().catch((error: unknown) => {
    stopAll();
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(2);
  });
}
