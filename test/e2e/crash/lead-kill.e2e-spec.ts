import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CASH_OFFER_CRM_SCHEMA } from '../../../src/crm';
import { HubSpotCrmAdapter } from '../../../src/crm/hubspot';
import { openLedger } from '../../../src/ledger/ledger';
import type { Ledger } from '../../../src/ledger/ledger';
import { startCashOfferSandbox } from '../../../sandbox/cash-offer';
import type { RunningCashOfferSandbox } from '../../../sandbox/cash-offer';
import { startHubSpotEmulator } from '../../../sandbox/hubspot';
import type { HubSpotEmulator } from '../../../sandbox/hubspot';
import { SUBMIT_BUYER_LEAD } from '../../../src/sync/buyer-leads/buyer-lead.constants';
import { freePort } from '../../support/free-port';
import { expectBuiltDaemon } from '../../support/worker-process';
import { DAEMON_WAIT, MAIN_JS, startProcess } from '../daemon/daemon.fixtures';
import { waitFor } from '../../support/wait-for';
import type { RunningProcess } from '../daemon/daemon.fixtures';
import { writeBuyerConfig } from '../sync-buyer/buyer-app';

const TOKEN = 'pat-buyer-kill-0123456789';
const PARTNER_KEY = 'sandbox-partner-key';
// Every second, so the test does not wait for minutes; the marketplace and reconcile jobs stay out of the way.
const SCHEDULES = {
  crmChanges: '* * * * * *',
  outboxDrain: '* * * * * *',
  marketplace: '0 0 1 1 *',
  offersReconcile: '0 0 1 1 *',
  inboxDrain: '*/5 * * * * *',
};

// The daemon (dist/bin/daemon.js) is SIGKILLed after the service stored the lead and before its answer
// came back; the restarted daemon must not send the lead again.
describe('a buyer lead when the daemon is killed between the call and the write-back', () => {
  let dir: string;
  let sandbox: RunningCashOfferSandbox;
  let emulator: HubSpotEmulator;
  let daemon: RunningProcess | undefined;
  let env: NodeJS.ProcessEnv;

  const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${sandbox.controlUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const create = async (type: 'contacts' | 'deals', properties: Record<string, string>): Promise<string> => {
    const res = await fetch(`${emulator.url}/crm/v3/objects/${type}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ properties }),
    });
    return ((await res.json()) as { id: string }).id;
  };
  const startDaemon = async (): Promise<RunningProcess> => {
    const process = startProcess(MAIN_JS, {
      ...env,
      ADMIN_PORT: String(await freePort()),
      WEBHOOK_PORT: String(await freePort()),
    });
    await waitFor(() => process.stdout().includes('listening on') || process.child.exitCode !== null, {
      what: 'the daemon to start',
      ...DAEMON_WAIT,
      timeoutMs: 30_000,
    });
    if (process.child.exitCode !== null) throw new Error(`the daemon exited: ${process.stderr()}`);
    return process;
  };

  beforeAll(async () => {
    expectBuiltDaemon();
    dir = mkdtempSync(join(tmpdir(), 'cos-buyer-kill-'));
    sandbox = await startCashOfferSandbox({ port: 0 });
    emulator = await startHubSpotEmulator({ port: 0, token: TOKEN, rateLimit: null, searchPerSecond: null });
    await new HubSpotCrmAdapter({ accessToken: TOKEN, basePath: emulator.url }).ensureSchema(
      CASH_OFFER_CRM_SCHEMA,
    );
    env = {
      PATH: process.env.PATH,
      ADMIN_HOST: '127.0.0.1',
      WEBHOOK_HOST: '127.0.0.1',
      ...writeBuyerConfig(
        {
          dir,
          brokerageId: 'partner',
          cashOfferBaseUrl: sandbox.baseUrl,
          cashOfferKey: PARTNER_KEY,
          crmBaseUrl: emulator.url,
          crmToken: TOKEN,
        },
        SCHEDULES,
      ),
      LOG_LEVEL: 'info',
    };
  });

  afterAll(async () => {
    await daemon?.stop();
    await emulator?.close();
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the lead once, leaves it for the operator and tells the agent on the contact', async () => {
    const seeded = await control<{ ids: [number, number] }>('POST', '/seed-active', {
      count: 1,
      ownerKey: PARTNER_KEY,
    });
    const requestId = seeded.ids[0];
    const listing = await create('deals', {
      dealname: 'Marketplace listing',
      cash_offer_listing_key: `req:${requestId}`,
      cash_offer_listing_request_id: String(requestId),
      cash_offer_listing_status: 'active',
    });
    const contact = await create('contacts', {
      firstname: 'Kim',
      lastname: 'Killed',
      email: 'kim@example.com',
      cash_offer_submit_lead: 'true',
    });
    const crm = new HubSpotCrmAdapter({ accessToken: TOKEN, basePath: emulator.url });
    await crm.associate([{ from: { kind: 'contact', id: contact }, to: { kind: 'deal', id: listing } }]);
    // The service stores the lead, then holds its answer: the daemon is inside the call when killed.
    await control('PUT', '/faults', { match: 'POST /buyer/lead', hangAfterCommitMs: 60_000 });

    daemon = await startDaemon();
    await waitFor(async () => (await control<unknown[]>('GET', '/buyer-leads')).length === 1, {
      what: 'the service to store the lead',
      ...DAEMON_WAIT,
      timeoutMs: 30_000,
    });
    daemon.child.kill('SIGKILL');
    expect((await daemon.exited).signal).toBe('SIGKILL');
    await control('DELETE', '/faults');
    await fetch(`${sandbox.controlUrl}/calls`, { method: 'DELETE' });

    daemon = await startDaemon();
    await waitFor(
      () =>
        /may already have been submitted/.test(
          emulator.state.get('contacts', contact)!.properties.cash_offer_lead_error ?? '',
        ),
      {
        what: 'the contact to say the lead may already have been submitted',
        ...DAEMON_WAIT,
        timeoutMs: 30_000,
      },
    );
    const ledger: Ledger = await openLedger({ databasePath: env.LEDGER_PATH! });
    try {
      const drainsBefore = (await ledger.runs.list({ job: 'outbox-drain', limit: 1000 })).length;
      // A few more drains pass over the unknown command without sending it again.
      await waitFor(
        async () => (await ledger.runs.list({ job: 'outbox-drain', limit: 1000 })).length >= drainsBefore + 3,
        { what: 'three more outbox drains', ...DAEMON_WAIT, timeoutMs: 30_000 },
      );
      const [command] = await ledger.outbox.listByState('partner', ['unknown']);
      expect(command.operation).toBe(SUBMIT_BUYER_LEAD);
      const errors = await ledger.recordErrors.listOpen({ brokerageId: 'partner' });
      expect(errors.find((e) => e.recordRef === contact)?.message).toMatch(
        new RegExp(`not sent again.*replay outbox command ${command.id}`),
      );
    } finally {
      await ledger.close();
    }
    expect(await control<unknown[]>('GET', '/buyer-leads')).toHaveLength(1);
    const calls = await control<{ method: string; path: string }[]>('GET', '/calls');
    // Since the restart: not one more POST /buyer/lead.
    expect(calls.filter((c) => c.method === 'POST' && c.path.includes('/buyer/lead'))).toHaveLength(0);
    expect(emulator.state.get('contacts', contact)!.properties.cash_offer_lead_id ?? '').toBe('');
  });
});
