import { createServer, type Server } from 'node:net';
import {
  baseEnv,
  brokerageConfig,
  MAIN_JS,
  makeWorkspace,
  startProcess,
  writeBrokerage,
  type Workspace,
} from './daemon.fixtures';
import { ManualClock } from '../../../src/common/clock';
import { openLedger } from '../../../src/ledger/ledger';
import { freePort } from '../../support/free-port';

jest.setTimeout(60_000);

// A daemon that cannot start says why in one paragraph naming the setting, with no stack trace.
describe('start-up errors', () => {
  let ws: Workspace;
  let held: Server;
  beforeEach(() => (ws = makeWorkspace()));
  afterEach(async () => {
    await new Promise((done) => held?.close(done));
    ws.cleanup();
  });

  it('names ADMIN_PORT when the admin port is taken', async () => {
    writeBrokerage(ws, brokerageConfig('acme'));
    const port = await freePort();
    held = createServer();
    await new Promise<void>((done) => held.listen(port, '127.0.0.1', done));
    const daemon = startProcess(MAIN_JS, { ...baseEnv(ws, port, ['acme']), LOG_LEVEL: 'warn' });
    const { code } = await daemon.exited;
    expect(code).toBe(1);
    expect(daemon.stderr()).toContain(
      `cash-offer-sync failed to start: ADMIN_PORT ${port} on 127.0.0.1 is already in use by another process. Stop that process or set ADMIN_PORT to a free port`,
    );
    expect(daemon.stderr()).not.toMatch(/\n\s+at /);
  });

  it('refuses a ledger holding outbox work no executor of this build knows, naming the operation', async () => {
    writeBrokerage(ws, brokerageConfig('acme'));
    const ledger = await openLedger({ databasePath: ws.ledgerPath, clock: new ManualClock(new Date()) });
    try {
      await ledger.outbox.enqueue({
        brokerageId: 'acme',
        idempotencyKey: 'acme:deal:7:archive_offer',
        operation: 'archive_offer',
        recordRef: 'deal:7',
        payload: {},
      });
    } finally {
      await ledger.close();
    }
    const daemon = startProcess(MAIN_JS, { ...baseEnv(ws, 0, ['acme']), LOG_LEVEL: 'warn' });
    const { code } = await daemon.exited;
    expect(code).toBe(1);
    expect(daemon.stderr()).toContain(
      'the ledger holds outbox commands no executor of this build knows: "archive_offer" (1 command(s) of acme)',
    );
  });
});
