import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { openLedger } from '../../../src/ledger';
import { readLedgerPurpose } from '../../../src/ledger/ledger-meta';
import { freePort } from '../../support/free-port';
import {
  DAEMON_WAIT,
  EMBEDDED_MAIN_JS,
  ROOT,
  brokerageConfig,
  makeWorkspace,
  secretsOf,
  startProcess,
  writeBrokerage,
  type RunningProcess,
  type Workspace,
} from './daemon.fixtures';
import { waitFor } from '../../support/wait-for';

// With LEDGER_PATH unset, the real brokerage disabled and the shipped demo.yaml
// simulated, a start used to delete the operator's data/ledger.sqlite. The demo now has its own file,
// marked as a demo's inside, and no other ledger is ever deleted.
describe('the demo never destroys the operator ledger', () => {
  let ws: Workspace;
  let daemon: RunningProcess | undefined;

  beforeEach(() => {
    ws = makeWorkspace();
  });

  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
    ws.cleanup();
  });

  async function populateProductionLedger(path: string): Promise<void> {
    const ledger = await openLedger({ databasePath: path });
    for (let i = 0; i < 5; i++) {
      const run = await ledger.runs.start('acme', 'marketplace');
      await ledger.runs.finish(run.id, {
        status: 'succeeded',
        counts: { read: 0, created: 0, updated: 0, unchanged: 0, failed: 0 },
      });
    }
    await ledger.outbox.enqueue({
      brokerageId: 'acme',
      idempotencyKey: 'acme-create-1',
      operation: 'create_offer_request',
      recordRef: 'deal-1',
      payload: {},
    });
    await ledger.close();
  }

  async function countRows(path: string): Promise<{ runs: number; outbox: number }> {
    const ledger = await openLedger({ databasePath: path });
    try {
      return {
        runs: (await ledger.runs.list({ limit: 1000 })).length,
        outbox: (await ledger.outbox.depth()).pending,
      };
    } finally {
      await ledger.close();
    }
  }

  it('starts the demo on its own marked ledger and leaves a populated data/ledger.sqlite intact', async () => {
    // The operator's ledger at the default path, relative to the daemon's working directory.
    mkdirSync(join(ws.dir, 'data'));
    const production = join(ws.dir, 'data', 'ledger.sqlite');
    await populateProductionLedger(production);
    const before = await countRows(production);
    expect(before).toEqual({ runs: 5, outbox: 1 });

    const [adminPort, webhookPort, cashOfferPort, hubspotPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    writeBrokerage(ws, { ...brokerageConfig('acme'), enabled: false });
    const demo = parse(readFileSync(join(ROOT, 'config/brokerages/demo.yaml'), 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
    demo.cashOffer.baseUrl = `http://127.0.0.1:${cashOfferPort}/api/v2`;
    demo.crm.baseUrl = `http://127.0.0.1:${hubspotPort}`;
    demo.webhooks.publicBaseUrl = `http://127.0.0.1:${webhookPort}`;
    writeBrokerage(ws, demo);

    // No LEDGER_PATH: the default applies.
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      TZ: 'UTC',
      CONFIG_DIR: ws.configDir,
      ADMIN_PORT: String(adminPort),
      WEBHOOK_PORT: String(webhookPort),
      LOG_LEVEL: 'info',
      ...secretsOf('acme'),
    };
    daemon = startProcess(EMBEDDED_MAIN_JS, env, ws.dir);
    await waitFor(() => daemon!.stdout().includes('"listening on') || daemon!.child.exitCode !== null, {
      what: 'the daemon to listen',
      ...DAEMON_WAIT,
      timeoutMs: 30_000,
    });
    expect(daemon.stderr()).toBe('');
    daemon.child.kill('SIGTERM');
    await daemon.exited;

    expect(await countRows(production)).toEqual(before);
    expect(readLedgerPurpose(production)).toBeUndefined();
    const demoLedger = join(ws.dir, 'data', 'demo', 'ledger.sqlite');
    expect(existsSync(demoLedger)).toBe(true);
    expect(readLedgerPurpose(demoLedger)).toBe('demo');
  }, 60_000);
});
