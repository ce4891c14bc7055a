import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { expectBuiltDaemon } from '../../support/worker-process';
import { CLI_JS, EMBEDDED_CLI_JS, EMBEDDED_MAIN_JS, MAIN_JS, runCli } from './daemon.fixtures';

// What scripts/bundle.mjs must leave in node_modules, for the reason each has. esbuild marks every
// module it joins with a `// node_modules/<package>/<file>` line, so a package joined shows there.
const KEPT_OUTSIDE: Record<string, string> = {
  'better-sqlite3': 'native code',
  '@hubspot/api-client': 'loaded only by a HubSpot brokerage',
  'pg-boss': 'loaded only on PostgreSQL with workers',
  nodemailer: 'loaded only for the first mail',
  // Two copies would split the process-wide settings the PostgreSQL ledger makes from what pg-boss,
  // which loads its own from node_modules, uses.
  pg: 'one node-postgres per process, shared with pg-boss',
};

function joinedPackages(bundlePath: string): Set<string> {
  const joined = new Set<string>();
  for (const match of readFileSync(bundlePath, 'utf8').matchAll(
    /^\/\/ node_modules\/((?:@[^/\n]+\/)?[^/\n]+)\//gm,
  ))
    joined.add(match[1]);
  return joined;
}

describe('the bundled programs (dist/bin)', () => {
  beforeAll(() => expectBuiltDaemon());

  it.each([MAIN_JS, CLI_JS, EMBEDDED_MAIN_JS, EMBEDDED_CLI_JS].map((path) => [basename(path), path]))(
    '%s joins the framework and keeps native, lazily loaded and shared packages outside',
    (_name, bundlePath) => {
      const joined = joinedPackages(bundlePath);
      expect(joined.has('@nestjs/core')).toBe(true);
      expect(joined.has('typeorm')).toBe(true);
      const inside = Object.keys(KEPT_OUTSIDE).filter((name) => joined.has(name));
      expect(inside.map((name) => `${name} (${KEPT_OUTSIDE[name]})`)).toEqual([]);
    },
  );

  // commander names a program after its script's file unless told; the operator reads one name.
  it.each([CLI_JS, EMBEDDED_CLI_JS].map((path) => [basename(path), path]))(
    '%s names itself cash-offer-sync in its usage lines',
    async (_name, cliPath) => {
      const env = { ...process.env, LOG_LEVEL: 'silent' };
      const top = await runCli(['--help'], env, cliPath);
      expect(top.stdout.split('\n')[0]).toBe('Usage: cash-offer-sync [options] [command]');
      const status = await runCli(['status', '--help'], env, cliPath);
      expect(status.stdout.split('\n')[0]).toMatch(/^Usage: cash-offer-sync status /);
    },
  );
});
