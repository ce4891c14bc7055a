import { randomUUID } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ReloadResult } from '../config/config.service';
import { formatProblem } from '../config/config-error';
import { PRIVATE_FILE_MODE } from '../ledger/private-files';

// How the daemon answers `cli reload-config`: SIGHUP carries no data either way, so after each reload
// the daemon writes its verdict beside its pid file, and the CLI waits for a verdict newer than the
// one it saw before signalling.
export interface ReloadVerdict {
  id: string; // new for every reload, so the CLI can tell this reload's verdict from the last one
  pid: number;
  finishedAt: string;
  ok: boolean;
  message: string;
  problems: string[];
}

export function reloadVerdictPath(ledgerPath: string): string {
  return join(dirname(ledgerPath), 'daemon.reload.json');
}

export function verdictOf(outcome: ReloadResult | Error, pid = process.pid): ReloadVerdict {
  const base = { id: randomUUID(), pid, finishedAt: new Date().toISOString() };
  if (outcome instanceof Error)
    return { ...base, ok: false, message: `the reload failed: ${outcome.message}`, problems: [] };
  const problems = outcome.problems.map(formatProblem);
  const { added, changed, removed } = outcome.diff;
  const ids = (list: { id: string }[]): string => list.map((b) => b.id).join(', ');
  const summary = `added [${ids(added)}], changed [${ids(changed)}], removed [${ids(removed)}]`;
  if (!outcome.applied)
    return { ...base, ok: false, message: 'the daemon rejected the reload; nothing changed', problems };
  if (outcome.failed.length > 0)
    return {
      ...base,
      ok: false,
      message: `the daemon could not load [${outcome.failed.join(', ')}] (unready, kept on their last good config, if any); ${summary}`,
      problems,
    };
  return { ...base, ok: true, message: `the daemon reloaded the config: ${summary}`, problems };
}

// Written to a temporary file and renamed, so a reader never sees half a verdict.
export function writeReloadVerdict(ledgerPath: string, verdict: ReloadVerdict): void {
  const path = reloadVerdictPath(ledgerPath);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(verdict)}\n`, { mode: PRIVATE_FILE_MODE });
  renameSync(temporary, path);
}

export function readReloadVerdict(ledgerPath: string): ReloadVerdict | undefined {
  try {
    return JSON.parse(readFileSync(reloadVerdictPath(ledgerPath), 'utf8')) as ReloadVerdict;
  } catch {
    return undefined;
  }
}
