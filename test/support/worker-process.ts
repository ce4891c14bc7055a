import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { newestFile } from './newest-file';

// The repository, whether this file runs from test/support (jest) or dist/test/support (a bench).
const above = resolve(__dirname, '..', '..');
const ROOT = basename(above) === 'dist' ? dirname(above) : above;

// A compiled daemon (dist/bin/daemon.js) as a child process, with its output kept for the test.
export const DAEMON_MAIN_JS = join(ROOT, 'dist', 'bin', 'daemon.js');

// The suites that run the built daemon say a missing build at once, not after a start-up timeout,
// and a stale one: tsc run alone rewrites dist/src but not the bundle made from it.
export function expectBuiltDaemon(): void {
  if (!existsSync(DAEMON_MAIN_JS)) throw new Error(`${DAEMON_MAIN_JS} is missing: run npm run build first`);
  const bundledAt = statSync(DAEMON_MAIN_JS).mtimeMs;
  const newer = newestFile(join(ROOT, 'dist', 'src'), (name) => name.endsWith('.js'));
  if (newer.mtimeMs > bundledAt)
    throw new Error(`${newer.path} is newer than ${DAEMON_MAIN_JS}: run npm run bundle (or npm run build)`);
}

export interface WorkerProcess {
  child: ChildProcess;
  port: number;
  stdout(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  // JSON log lines (pino) printed so far.
  logs(): Record<string, unknown>[];
  kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startWorkerProcess(env: NodeJS.ProcessEnv, port: number): WorkerProcess {
  const child = spawn(process.execPath, [DAEMON_MAIN_JS], {
    // `port` is the worker's webhook listener; its admin listener takes any free port.
    env: { ...env, WEBHOOK_PORT: String(port), ADMIN_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  const worker: WorkerProcess = {
    child,
    port,
    stdout: () => `${out}${err}`,
    exited,
    logs: () =>
      out
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  return worker;
}

// The run a worker has started for (brokerage, job) and not yet finished, from its log.
export function openRun(worker: WorkerProcess, brokerageId: string, job: string): number | undefined {
  let open: number | undefined;
  for (const line of worker.logs()) {
    if (line.brokerageId !== brokerageId || line.job !== job || typeof line.runId !== 'number') continue;
    const msg = String(line.msg);
    if (msg === 'run started') open = line.runId;
    else if (msg.startsWith('run ') && line.runId === open) open = undefined;
  }
  return open;
}
