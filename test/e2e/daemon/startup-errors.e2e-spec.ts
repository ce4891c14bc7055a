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
});
