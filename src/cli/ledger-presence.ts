import { existsSync } from 'node:fs';

// Commands that work before the daemon ever started (docs: "First run of a new brokerage"): they
// write nothing the ledger must keep, so with no ledger file they run on an in-memory one.
// (register-webhooks remembers what it registered, so it needs the real ledger.)
const RUN_WITHOUT_LEDGER_FILE = ['setup-crm'];
// A step of a first deployment, before the daemon's first start: it makes the ledger the daemon
// would (what it records is idempotent at the service, so a mistyped path costs nothing).
const CREATE_LEDGER_FILE = ['register-webhooks'];

export type LedgerPresence =
  { use: 'file' } | { use: 'create' } | { use: 'memory' } | { use: 'none'; problem: string };

// The CLI never creates a ledger: a typo in LEDGER_PATH must not quietly give an empty one (and, for
// sync, a second run of every create). The daemon creates it on its first start.
export function ledgerPresence(ledgerPath: string, argv: string[], ledgerCommands: string[]): LedgerPresence {
  if (existsSync(ledgerPath)) return { use: 'file' };
  const [command = ''] = argv;
  const dryRun = command === 'sync' && argv.includes('--dry-run');
  // --help, or no or an unknown command: Nest still builds the modules, so give it a ledger that
  // leaves no file behind.
  const help = argv.includes('--help') || argv.includes('-h') || !ledgerCommands.includes(command);
  if (RUN_WITHOUT_LEDGER_FILE.includes(command) || dryRun || help) return { use: 'memory' };
  if (CREATE_LEDGER_FILE.includes(command)) return { use: 'create' };
  return {
    use: 'none',
    problem:
      `There is no ledger at ${ledgerPath} (LEDGER_PATH). The CLI never creates one: check LEDGER_PATH for ` +
      'a typo, or start the daemon once (npm run start:daemon; npm start for the demo), which creates it. ' +
      'setup-crm, register-webhooks and sync --dry-run work before that.',
  };
}
