import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { newestFile } from './newest-file';

const ROOT = join(__dirname, '..', '..');

// Children run compiled code; build when dist/ is missing or older than the ledger's sources (the
// build emits even when other folders have type errors, so its exit code is not the signal).
// Returns the compiled child's path.
export function ensureLedgerChildBuilt(name: 'ledger-crash-child' | 'ledger-module-child'): string {
  const compiled = join(ROOT, 'dist', 'test', 'support', `${name}.js`);
  const sources = Math.max(
    newestFile(join(ROOT, 'src', 'ledger')).mtimeMs,
    statSync(join(ROOT, 'test', 'support', `${name}.ts`)).mtimeMs,
  );
  if (existsSync(compiled) && statSync(compiled).mtimeMs >= sources) return compiled;
  spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: 'ignore',
    },
  );
  if (!existsSync(compiled)) throw new Error(`could not build ${compiled}; run npm run build`);
  return compiled;
}

export interface ChildRun {
  lines: string[][];
  stderr: string;
}

// Starts the child, lets it write for `runMs` after it is ready, then SIGKILLs it. Only complete
// lines count: a line cut by the kill was not fully reported.
export function runAndKill(
  childPath: string,
  databasePath: string,
  generation: number,
  runMs: number,
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [childPath, databasePath, String(generation)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    const deadline = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (timer === undefined && stdout.startsWith('ready')) {
        timer = setTimeout(() => child.kill('SIGKILL'), runMs);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      clearTimeout(deadline);
      if (timer) clearTimeout(timer);
      if (signal !== 'SIGKILL') return reject(new Error(`crash child exited by itself: ${stderr}`));
      const complete = stdout.slice(0, stdout.lastIndexOf('\n') + 1);
      resolve({
        lines: complete
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(' ')),
        stderr,
      });
    });
  });
}
