import { startCashOfferSandbox, type RunningCashOfferSandbox } from '../../../sandbox/cash-offer';
import { openLedger, type Ledger } from '../../../src/ledger/ledger';
import type { OutboxCommand } from '../../../src/ledger/entities';
import { freePort } from '../../support/free-port';
import { waitFor } from '../../support/wait-for';
import {
  DAEMON_WAIT,
  MAIN_JS,
  baseEnv,
  brokerageConfig,
  makeWorkspace,
  secretsOf,
  startProcess,
  writeBrokerage,
  type RunningProcess,
  type Workspace,
} from '../daemon/daemon.fixtures';

// Registration is an outbox command: one that failed while the service was unreachable is in the
// ledger, and the daemon started again (after a graceful stop, nothing killed) sends it from there.
describe('webhook registration across a daemon restart', () => {
  let ws: Workspace;
  let sandbox: RunningCashOfferSandbox | undefined;
  let daemon: RunningProcess | undefined;
  let ledger: Ledger | undefined;
  const secret = secretsOf('acme').ACME_WEBHOOK_SECRET;

  afterAll(async () => {
    await ledger?.close();
    await daemon?.stop();
    await sandbox?.close();
    ws.cleanup();
  });

  async function startDaemon(env: NodeJS.ProcessEnv): Promise<RunningProcess> {
    const started = startProcess(MAIN_JS, env);
    await waitFor(() => started.stdout().includes('"listening on') || started.child.exitCode !== null, {
      what: 'the daemon to listen',
      ...DAEMON_WAIT,
    });
    if (started.child.exitCode !== null) throw new Error(`daemon exited: ${started.stderr()}`);
    return started;
  }

  async function stopGracefully(running: RunningProcess): Promise<void> {
    running.child.kill('SIGTERM');
    expect(await running.exited).toEqual({ code: 0, signal: null });
  }

  const registrations = async (): Promise<OutboxCommand[]> =>
    (
      await ledger!.outbox.listByState('acme', ['pending', 'sending', 'failed', 'unknown', 'dead', 'done'])
    ).filter((c) => c.operation === 'register_webhook');

  it('retries a registration that failed before the restart, from the ledger', async () => {
    ws = makeWorkspace();
    const cashOfferPort = await freePort();
    const config = brokerageConfig('acme') as { cashOffer: { baseUrl: string }; crm: { baseUrl: string } };
    // Nothing listens there yet: the service is unreachable during the first run.
    config.cashOffer.baseUrl = `http://127.0.0.1:${cashOfferPort}/api/v2`;
    config.crm.baseUrl = 'http://127.0.0.1:9';
    writeBrokerage(ws, config);
    const env = baseEnv(ws, await freePort(), ['acme'], await freePort());

    daemon = await startDaemon(env);
    ledger = await openLedger({ databasePath: ws.ledgerPath });
    // Waiting to be sent again: a connection never opened sent nothing, so the command is pending (no
    // attempt counted), as it is once the brokerage's circuit is open.
    const [failed] = await waitFor(
      async () => {
        const found = await registrations();
        const said = daemon!.stdout().includes('could not register the webhook URL of acme');
        return said && found.some((c) => c.state === 'pending' && c.lastError !== null) && found;
      },
      { what: 'a register_webhook command waiting after its failure in the ledger', ...DAEMON_WAIT },
    );
    // Refused, or not sent at all once the other jobs' calls to the unreachable service have opened
    // the brokerage's circuit (which comes first depends on the machine's load).
    expect(failed.lastError).toMatch(
      /^(not sent: )?POST \/wh: (the service refused the connection|not sent; the circuit of brokerage acme is open)/,
    );
    expect(JSON.stringify(failed)).not.toContain(secret);
    expect(daemon.stdout()).toContain('could not register the webhook URL of acme');
    await stopGracefully(daemon);

    sandbox = await startCashOfferSandbox({ port: cashOfferPort });
    daemon = await startDaemon({ ...env, ACME_CASH_OFFER_KEY: sandbox.agentKey });
    await waitFor(
      async () => {
        const answer = await fetch(`${sandbox!.controlUrl}/webhooks`);
        const urls = Object.values((await answer.json()) as Record<string, string>);
        return urls.includes(`http://127.0.0.1:3001/webhooks/acme/${secret}`);
      },
      { what: 'the service to hold acme’s webhook URL', ...DAEMON_WAIT },
    );
    const after = await waitFor(
      async () => {
        const found = await registrations();
        return found.every((c) => c.state === 'done') && found;
      },
      { what: 'the register_webhook command to be done', ...DAEMON_WAIT },
    );
    expect(after).toEqual([
      expect.objectContaining({ id: failed.id, state: 'done', result: { outcome: 'registered' } }),
    ]);
    await stopGracefully(daemon);
    daemon = undefined;
  });
});
