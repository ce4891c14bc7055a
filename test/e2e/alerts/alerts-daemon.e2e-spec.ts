import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startCashOfferSandbox, type RunningCashOfferSandbox } from '../../../sandbox/cash-offer';
import { startHubSpotEmulator, type HubSpotEmulator } from '../../../sandbox/hubspot';
import { CASH_OFFER_CRM_SCHEMA } from '../../../src/crm';
import { HubSpotCrmAdapter } from '../../../src/crm/hubspot';
import { openLedger, type Ledger } from '../../../src/ledger/ledger';
import { freePort } from '../../support/free-port';
import { expectBuiltDaemon } from '../../support/worker-process';
import { DAEMON_WAIT, MAIN_JS, startProcess, type RunningProcess } from '../daemon/daemon.fixtures';
import { waitFor } from '../../support/wait-for';
import { startSmtpReceiver, startWebhookReceiver } from '../../support/alert-receivers';

jest.setTimeout(180_000);

const TOKEN = 'pat-alerts-e2e-0123456789';
const WEBHOOK_SECRET = 'alert-signing-secret-0123456789';
const BAD_KEY = 'not-a-key-the-service-knows-4711';
// Fast schedules so a refused key shows within seconds; every job needs one remote or the other.
const SCHEDULES = {
  crmChanges: '*/2 * * * * *',
  outboxDrain: '*/2 * * * * *',
  marketplace: '*/2 * * * * *',
  offersReconcile: '*/5 * * * * *',
  inboxDrain: '*/5 * * * * *',
};

// The black-box check of docs/operations.md, "Alerts": the built daemon (dist/bin/daemon.js) with its
// alert channels pointed at a real HTTP receiver and a real SMTP server. Each change of a problem's
// state is told once, signed; a restart in between tells nothing again.
describe('alerts of the built daemon', () => {
  let dir: string;
  let sandbox: RunningCashOfferSandbox;
  let sandboxPort: number;
  let emulator: HubSpotEmulator;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let slack: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let daemon: RunningProcess | undefined;
  let ledger: Ledger | undefined;
  let env: NodeJS.ProcessEnv;
  let keyFile: string;
  let tokenFile: string;

  const notices = (kind: string, state: 'firing' | 'resolved', remote?: string) =>
    receiver.received.filter(
      (r) =>
        r.json.kind === kind &&
        r.json.state === state &&
        (remote === undefined || String(r.json.alert).endsWith(`:${remote}`)),
    );
  const serviceCalls = async (): Promise<number> =>
    ((await (await fetch(`${sandbox.controlUrl}/calls`)).json()) as unknown[]).length;
  const lines = (process: RunningProcess, text: string): number =>
    process
      .stdout()
      .split('\n')
      .filter((l) => l.includes(text)).length;

  const startDaemon = async (): Promise<RunningProcess> => {
    const started = startProcess(MAIN_JS, {
      ...env,
      ADMIN_PORT: String(await freePort()),
      WEBHOOK_PORT: String(await freePort()),
    });
    await waitFor(() => started.stdout().includes('listening on') || started.child.exitCode !== null, {
      what: 'the daemon to start',
      ...DAEMON_WAIT,
      timeoutMs: 30_000,
    });
    if (started.child.exitCode !== null) throw new Error(`the daemon exited: ${started.stderr()}`);
    return started;
  };
  // Some alert checks done by this process after now, so "nothing more was sent" means something.
  const checksPass = async (process: RunningProcess, n = 3): Promise<void> => {
    const before = lines(process, 'alert check done');
    await waitFor(() => lines(process, 'alert check done') >= before + n, {
      what: `${n} alert checks`,
      ...DAEMON_WAIT,
      timeoutMs: 30_000,
    });
  };
  const reload = async (): Promise<void> => {
    const before = lines(daemon!, 'config reloaded');
    daemon!.child.kill('SIGHUP');
    await waitFor(() => lines(daemon!, 'config reloaded') > before, {
      what: 'the config to reload',
      ...DAEMON_WAIT,
      timeoutMs: 15_000,
    });
  };

  beforeAll(async () => {
    expectBuiltDaemon();
    dir = mkdtempSync(join(tmpdir(), 'cos-alerts-'));
    sandbox = await startCashOfferSandbox({ port: 0 });
    sandboxPort = sandbox.port;
    emulator = await startHubSpotEmulator({ port: 0, token: TOKEN, rateLimit: null, searchPerSecond: null });
    await new HubSpotCrmAdapter({ accessToken: TOKEN, basePath: emulator.url }).ensureSchema(
      CASH_OFFER_CRM_SCHEMA,
    );
    receiver = await startWebhookReceiver(WEBHOOK_SECRET);
    smtp = await startSmtpReceiver();
    slack = await startWebhookReceiver('unused-slack-has-no-signature');
    writeFileSync(join(dir, 'slack.url'), `${slack.url}\n`);
    keyFile = join(dir, 'cash-offer.key');
    tokenFile = join(dir, 'crm.token');
    writeFileSync(keyFile, BAD_KEY);
    writeFileSync(tokenFile, TOKEN);
    const configDir = join(dir, 'brokerages');
    mkdirSync(configDir);
    writeFileSync(
      join(configDir, 'acme.yaml'),
      stringify({
        id: 'acme',
        cashOffer: { baseUrl: sandbox.baseUrl, apiKeyFile: keyFile },
        crm: {
          kind: 'hubspot',
          baseUrl: emulator.url,
          tokenFile,
          pipelines: { listings: { pipelineId: 'default', triggerProperty: 'cash_offer_request_trigger' } },
        },
        webhooks: { publicBaseUrl: 'http://127.0.0.1:9', secretEnv: 'ACME_WEBHOOK_SECRET' },
        schedules: SCHEDULES,
        // The brokerage's own broker hears of its alerts too.
        alerts: { emailTo: ['broker@acme.example'] },
      }),
    );
    env = {
      PATH: process.env.PATH,
      TZ: 'UTC',
      CONFIG_DIR: configDir,
      LEDGER_PATH: join(dir, 'ledger.sqlite'),
      ADMIN_HOST: '127.0.0.1',
      WEBHOOK_HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
      ACME_WEBHOOK_SECRET: 'whsec-acme-alerts-0123456789abcdef',
      ALERT_WEBHOOK_URL: receiver.url,
      ALERT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      ALERT_SMTP_URL: smtp.url,
      ALERT_SLACK_WEBHOOK_URL_FILE: join(dir, 'slack.url'),
      ALERT_EMAIL_TO: 'ops@brokerage.example',
      ALERT_EMAIL_FROM: 'alerts@brokerage.example',
      ALERT_CHECK_SECONDS: '1',
      ALERT_JOB_FAILURES: '3',
      ALERT_RENOTIFY_MINUTES: '0',
      // Re-checked on reloads and at start only, so the call log shows the pause.
      ALERT_CREDENTIAL_RECHECK_MINUTES: '60',
    };
  });

  afterAll(async () => {
    await ledger?.close();
    await daemon?.stop();
    await sandbox?.close();
    await emulator?.close();
    await receiver?.close();
    await smtp?.close();
    await slack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a refused Cash Offer key: one signed firing alert naming the brokerage, and the service is left alone', async () => {
    daemon = await startDaemon();
    const [firing] = await waitFor(
      () =>
        notices('credential_refused', 'firing', 'cash-offer').length > 0 &&
        notices('credential_refused', 'firing', 'cash-offer'),
      { what: 'a firing alert for the refused key', ...DAEMON_WAIT, timeoutMs: 60_000 },
    );
    expect(firing.signatureValid).toBe(true);
    expect(firing.headers['x-cash-offer-sync-delivery']).toMatch(/^\d+$/);
    expect(firing.json).toMatchObject({ brokerage: 'acme', state: 'firing', reminder: false, episode: 1 });
    expect(String(firing.json.summary)).toContain('the Cash Offer service refused');
    expect(firing.body).not.toContain(BAD_KEY);
    expect(firing.body).not.toContain(TOKEN);
    const firingMails = () => smtp.mails.filter((m) => /FIRING: credentials refused/.test(m.raw));
    const mails = await waitFor(() => firingMails().length === 2 && firingMails(), {
      what: 'the alert mails',
      ...DAEMON_WAIT,
    });
    expect(mails.map((m) => m.to.join()).sort()).toEqual(['broker@acme.example', 'ops@brokerage.example']);
    for (const mail of mails) expect(mail.raw).toContain('brokerage acme');
    const text = await waitFor(() => slack.received[0]?.json.text as string | undefined, {
      what: 'the Slack message',
      ...DAEMON_WAIT,
    });
    expect(text).toContain('FIRING: credentials refused (brokerage acme)');

    // Paused: the jobs are skipped, so the service hears nothing more from this brokerage.
    ledger = await openLedger({ databasePath: env.LEDGER_PATH! });
    expect((await ledger.pauses.list('acme')).map((p) => p.job)).toEqual(['credential:cash-offer']);
    const calls = await serviceCalls();
    const skipped = lines(daemon, 'skipped marketplace for acme');
    await waitFor(() => lines(daemon!, 'skipped marketplace for acme') >= skipped + 3, {
      what: 'three skipped marketplace runs',
      ...DAEMON_WAIT,
    });
    expect(await serviceCalls()).toBe(calls);
    expect(notices('credential_refused', 'firing')).toHaveLength(1);
  });

  it('a restart while it lasts sends nothing twice', async () => {
    daemon!.child.kill('SIGTERM');
    expect((await daemon!.exited).code).toBe(0);
    daemon = await startDaemon();
    await checksPass(daemon);
    expect(notices('credential_refused', 'firing')).toHaveLength(1);
    // One mail to the daemon's recipients and one to the brokerage's, as before the restart.
    expect(smtp.mails.filter((m) => /FIRING/.test(m.raw))).toHaveLength(2);
  });

  it('the key fixed in its file and the config reloaded: one resolved alert, and the jobs run again', async () => {
    writeFileSync(keyFile, sandbox.agentKey);
    await reload();
    const [resolved] = await waitFor(
      () =>
        notices('credential_refused', 'resolved', 'cash-offer').length > 0 &&
        notices('credential_refused', 'resolved', 'cash-offer'),
      { what: 'the resolved alert', ...DAEMON_WAIT, timeoutMs: 30_000 },
    );
    expect(resolved.signatureValid).toBe(true);
    expect(resolved.json).toMatchObject({ brokerage: 'acme', state: 'resolved', episode: 1 });
    expect(typeof resolved.json.lastedSeconds).toBe('number');
    expect(await ledger!.pauses.list('acme')).toEqual([]);
    const since = new Date();
    await waitFor(
      async () =>
        (await ledger!.runs.list({ brokerageId: 'acme', job: 'marketplace', limit: 5 })).some(
          (r) => r.status === 'succeeded' && r.startedAt >= since,
        ),
      { what: 'a marketplace run to succeed', ...DAEMON_WAIT, timeoutMs: 30_000 },
    );
    await checksPass(daemon!);
    expect(notices('credential_refused', 'resolved')).toHaveLength(1);
    expect(smtp.mails.filter((m) => /RESOLVED: credentials refused/.test(m.raw))).toHaveLength(2);
  });

  it('a refused CRM token: one firing alert, then one resolved once the token works again', async () => {
    writeFileSync(tokenFile, 'pat-revoked-token-000000');
    await reload();
    const [firing] = await waitFor(
      () =>
        notices('credential_refused', 'firing', 'crm').length > 0 &&
        notices('credential_refused', 'firing', 'crm'),
      { what: 'a firing alert for the refused CRM token', ...DAEMON_WAIT, timeoutMs: 30_000 },
    );
    expect(firing.json).toMatchObject({ brokerage: 'acme', state: 'firing' });
    expect(String(firing.json.summary)).toContain('the CRM refused');
    expect((await ledger!.pauses.list('acme')).map((p) => p.job)).toEqual(['credential:crm']);

    writeFileSync(tokenFile, TOKEN);
    await reload();
    await waitFor(() => notices('credential_refused', 'resolved', 'crm').length > 0, {
      what: 'the CRM alert to resolve',
      ...DAEMON_WAIT,
      timeoutMs: 30_000,
    });
    await checksPass(daemon!);
    expect(notices('credential_refused', 'firing', 'crm')).toHaveLength(1);
    expect(notices('credential_refused', 'resolved', 'crm')).toHaveLength(1);
    expect(await ledger!.pauses.list('acme')).toEqual([]);
  });

  it('a brokerage whose file stops loading: one firing alert, resolved when the file is gone', async () => {
    const broken = join(env.CONFIG_DIR!, 'broken.yaml');
    writeFileSync(broken, stringify({ id: 'broken', cashOffer: { baseUrl: 'not a url' } }));
    await reload();
    const [firing] = await waitFor(
      () => notices('brokerage_unloaded', 'firing').length > 0 && notices('brokerage_unloaded', 'firing'),
      { what: 'the brokerage-unloaded alert', ...DAEMON_WAIT, timeoutMs: 30_000 },
    );
    expect(firing.json).toMatchObject({ brokerage: 'broken', state: 'firing' });
    expect(String(firing.json.summary)).toContain('brokerage broken failed to load');
    rmSync(broken);
    await reload();
    await waitFor(() => notices('brokerage_unloaded', 'resolved').length > 0, {
      what: 'the unloaded alert to resolve',
      ...DAEMON_WAIT,
      timeoutMs: 30_000,
    });
    await checksPass(daemon!);
    expect(notices('brokerage_unloaded', 'firing')).toHaveLength(1);
    expect(notices('brokerage_unloaded', 'resolved')).toHaveLength(1);
  });

  it('a stopped service: one firing alert after the threshold, one resolved when it is back', async () => {
    await sandbox.close();
    const [firing] = await waitFor(
      () => notices('jobs_failing', 'firing').length > 0 && notices('jobs_failing', 'firing'),
      { what: 'the jobs-failing alert', ...DAEMON_WAIT, timeoutMs: 60_000 },
    );
    expect(String(firing.json.summary)).toMatch(/brokerage acme: .*failed \d+ run\(s\) in a row/);
    // Down is not refused: nothing paused.
    expect(await ledger!.pauses.list('acme')).toEqual([]);

    sandbox = await startCashOfferSandbox({ port: sandboxPort });
    await waitFor(() => notices('jobs_failing', 'resolved').length > 0, {
      what: 'the jobs-failing alert to resolve',
      ...DAEMON_WAIT,
      timeoutMs: 60_000,
    });
    await checksPass(daemon!);
    expect(notices('jobs_failing', 'firing')).toHaveLength(1);
    expect(notices('jobs_failing', 'resolved')).toHaveLength(1);
    expect(receiver.received.every((r) => r.signatureValid)).toBe(true);
    // Nothing else was raised along the way.
    expect(
      new Set(receiver.received.map((r) => `${String(r.json.alert)} ${String(r.json.state)}`)).size,
    ).toBe(receiver.received.length);
  });
});
