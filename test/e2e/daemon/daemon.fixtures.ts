import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../../support/free-port';
import { waitFor } from '../../support/wait-for';

// Shared by the daemon's end-to-end tests: a temp workspace (config dir, ledger, event log), brokerage
// files, and the compiled daemon, harness or CLI run as child processes (`npm run build` first).

export const ROOT = resolve(__dirname, '..', '..', '..');
// The programs as shipped: one bundled file each (scripts/bundle.mjs).
export const MAIN_JS = join(ROOT, 'dist', 'bin', 'daemon.js');
export const CLI_JS = join(ROOT, 'dist', 'bin', 'cli.js');
// `npm start` and `npm run cli`: the same with the embedded demo composed in (simulated brokerages).
export const EMBEDDED_MAIN_JS = join(ROOT, 'dist', 'bin', 'embedded.js');
export const EMBEDDED_CLI_JS = join(ROOT, 'dist', 'bin', 'embedded-cli.js');
export const HARNESS_JS = join(__dirname, 'fixtures', 'daemon-harness.js');

export interface Workspace {
  dir: string;
  configDir: string;
  ledgerPath: string;
  eventsPath: string;
  stateDir: string;
  cleanup(): void;
}

export function makeWorkspace(): Workspace {
  const dir = mkdtempSync(join(tmpdir(), 'cos-daemon-'));
  const configDir = join(dir, 'brokerages');
  const stateDir = join(dir, 'state');
  mkdirSync(configDir);
  mkdirSync(stateDir);
  return {
    dir,
    configDir,
    stateDir,
    ledgerPath: join(dir, 'ledger.sqlite'),
    eventsPath: join(dir, 'events.jsonl'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const envPrefix = (id: string): string => id.toUpperCase().replace(/-/g, '_');

// The secret values a brokerage's file names; distinctive so a leak is easy to find.
export function secretsOf(id: string): Record<string, string> {
  const p = envPrefix(id);
  return {
    [`${p}_CASH_OFFER_KEY`]: `cokey-${id}-7f3a9c1e5b`,
    [`${p}_CRM_TOKEN`]: `pat-${id}-2d4e6f8a0c`,
    [`${p}_WEBHOOK_SECRET`]: `whsec-${id}-Zq8xY2mN4pR6tV0wK3`,
  };
}

export function brokerageConfig(id: string, schedules: Record<string, string> = {}): Record<string, unknown> {
  const p = envPrefix(id);
  return {
    id,
    cashOffer: { baseUrl: 'http://127.0.0.1:4010/api/v2', apiKeyEnv: `${p}_CASH_OFFER_KEY` },
    crm: {
      kind: 'hubspot',
      baseUrl: 'http://127.0.0.1:4020',
      tokenEnv: `${p}_CRM_TOKEN`,
      pipelines: { listings: { pipelineId: 'default', triggerProperty: 'cash_offer_request_trigger' } },
    },
    webhooks: { publicBaseUrl: 'http://127.0.0.1:3001', secretEnv: `${p}_WEBHOOK_SECRET` },
    schedules,
  };
}

export function writeBrokerage(
  ws: Workspace,
  config: Record<string, unknown>,
  name = `${String(config.id)}.yaml`,
): string {
  const path = join(ws.configDir, name);
  writeFileSync(path, name.endsWith('.json') ? JSON.stringify(config) : stringify(config));
  return path;
}

// `port` is the admin listener's; the webhook listener gets `webhookPort` (0: any free port).
export function baseEnv(ws: Workspace, port: number, ids: string[], webhookPort = 0): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    TZ: 'UTC',
    CONFIG_DIR: ws.configDir,
    LEDGER_PATH: ws.ledgerPath,
    ADMIN_HOST: '127.0.0.1',
    ADMIN_PORT: String(port),
    WEBHOOK_HOST: '127.0.0.1',
    WEBHOOK_PORT: String(webhookPort),
    LOG_LEVEL: 'info',
    HARNESS_EVENTS: ws.eventsPath,
    HARNESS_STATE_DIR: ws.stateDir,
  };
  for (const id of ids) Object.assign(env, secretsOf(id));
  return env;
}

export interface RunningProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export function startProcess(script: string, env: NodeJS.ProcessEnv, cwd = ROOT): RunningProcess {
  const child = spawn(process.execPath, [script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

// How long and how often tests poll a daemon process (a start takes seconds on a busy machine);
// spread into waitFor's options.
export const DAEMON_WAIT = { timeoutMs: 15_000, intervalMs: 50 } as const;

export interface HarnessEvent {
  type: 'start' | 'end' | 'error' | 'page';
  job?: string;
  brokerageId: string;
  runId: number | null;
  page?: number;
  read?: number;
  aborted?: boolean;
  message?: string;
  pid?: number;
  at: number;
}

export function readEvents(ws: Workspace): HarnessEvent[] {
  if (!existsSync(ws.eventsPath)) return [];
  return readFileSync(ws.eventsPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as HarnessEvent);
}

export function logLines(process: RunningProcess): Record<string, unknown>[] {
  return process
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export async function startHarness(
  ws: Workspace,
  ids: string[],
  extra: NodeJS.ProcessEnv = {},
): Promise<{ daemon: RunningProcess; port: number; url: string; webhookUrl: string }> {
  const [port, webhookPort] = [await freePort(), await freePort()];
  const daemon = startProcess(HARNESS_JS, { ...baseEnv(ws, port, ids, webhookPort), ...extra });
  await waitFor(() => daemon.stdout().includes('"listening on') || daemon.child.exitCode !== null, {
    what: 'the daemon to listen',
    ...DAEMON_WAIT,
  });
  if (daemon.child.exitCode !== null) throw new Error(`daemon exited: ${daemon.stderr()}`);
  return {
    daemon,
    port,
    url: `http://127.0.0.1:${port}`,
    webhookUrl: `http://127.0.0.1:${webhookPort}`,
  };
}

// The CLI as `npm run cli` runs it, with the embedded demo's settings.
export function runEmbeddedCli(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCli(args, env, EMBEDDED_CLI_JS);
}

export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  cli = CLI_JS,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { cwd: ROOT, env, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}
