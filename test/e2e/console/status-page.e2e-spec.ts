import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLedger } from '../../../src/ledger/ledger';
import { startSimulators, type Simulators } from '../../../sandbox/simulators';
import { freePort } from '../../support/free-port';
import { HeadlessBrowser } from '../../support/browser/headless-browser';
import { writeBrokerageConfigs } from '../../support/webhook-app';
import {
  DAEMON_WAIT,
  MAIN_JS,
  ROOT,
  runCli,
  startProcess,
  type RunningProcess,
} from '../daemon/daemon.fixtures';
import { waitFor } from '../../support/wait-for';

jest.setTimeout(180_000);

const EVERY_SECOND = '* * * * * *';
// Polls that reload the page: each poll is a page load in Chromium and a console render in the
// daemon, so four a second, not twenty (the jobs run once a second; what is awaited lasts).
const PAGE_POLL = { ...DAEMON_WAIT, intervalMs: 250, timeoutMs: 30_000 } as const;
const CRM_RECORD_URL = 'https://app.hubspot.com/contacts/1234567/record/0-3/{id}';
// Set to refresh the screenshot the README shows (docs/images/status-page.png).
const UPDATE_DOCS_SCREENSHOT = process.env.UPDATE_DOCS_SCREENSHOT === '1';

// The status page as an operator uses it, in headless Chromium: the simulators, the compiled daemon
// (`npm run build` first) on a ledger seeded with a dead command, dead and flagged webhook events
// and a record error; the browser pauses the brokerage, sees its jobs stop, replays the dead command,
// and resumes it. Screenshots of each state go to a temp dir and are checked for what they show.
describe('status page', () => {
  let sims: Simulators;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let daemon: RunningProcess;
  let browser: HeadlessBrowser;
  let admin: string;
  let deadCommandId: number;

  beforeAll(async () => {
    sims = await startSimulators({ cashOfferPort: 0, hubspotPort: 0, log: false });
    dir = mkdtempSync(join(tmpdir(), 'cos-console-'));
    const [adminPort, webhookPort] = [await freePort(), await freePort()];
    admin = `http://127.0.0.1:${adminPort}`;
    const vars: Record<string, string> = {};
    writeBrokerageConfigs(
      join(dir, 'brokerages'),
      [
        {
          id: 'acme',
          secret: 'acme-secret-0123456789abcdefghij',
          cashOfferBaseUrl: sims.cashOffer.baseUrl,
          cashOfferApiKey: sims.cashOffer.agentKey,
          crmBaseUrl: sims.hubspot.url,
          crmToken: sims.hubspot.token,
          publicBaseUrl: `http://127.0.0.1:${webhookPort}`,
          schedules: {
            crmChanges: EVERY_SECOND,
            offersReconcile: EVERY_SECOND,
            marketplace: EVERY_SECOND,
            outboxDrain: EVERY_SECOND,
            inboxDrain: EVERY_SECOND,
          },
        },
      ],
      vars,
    );
    // Where this brokerage's deals open in the CRM, so record errors link to them.
    const file = join(dir, 'brokerages', 'acme.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        '  kind: hubspot\n',
        `  kind: hubspot\n  recordUrl: '${CRM_RECORD_URL}'\n`,
      ),
    );
    env = {
      PATH: process.env.PATH,
      TZ: 'UTC',
      ...vars,
      CONFIG_DIR: join(dir, 'brokerages'),
      LEDGER_PATH: join(dir, 'ledger.sqlite'),
      ADMIN_HOST: '127.0.0.1',
      ADMIN_PORT: String(adminPort),
      WEBHOOK_HOST: '127.0.0.1',
      WEBHOOK_PORT: String(webhookPort),
      LOG_LEVEL: 'info',
      // Alerts looked for every second, so the page shows them at once.
      ALERT_CHECK_SECONDS: '1',
    };
    expect((await runCli(['setup-crm'], env)).code).toBe(0);
    deadCommandId = await seedLedger(env.LEDGER_PATH!);
    daemon = startProcess(MAIN_JS, env);
    await waitFor(() => daemon.stdout().includes('"listening on') || daemon.child.exitCode !== null, {
      what: 'the daemon to listen',
      ...DAEMON_WAIT,
      timeoutMs: 30_000,
    });
    if (daemon.child.exitCode !== null) throw new Error(`daemon exited: ${daemon.stderr()}`);
    browser = await HeadlessBrowser.launch();
  });

  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
    await sims?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const lastRunColumn = () => browser.texts('#jobs-acme tbody td:nth-child(3)');
  const reload = async () => expect(await browser.goto(`${admin}/console`)).toBe(200);

  it('shows every job, the queues, the errors and the dead events, and acts on them', async () => {
    // Running: every job has run at least once.
    await waitFor(
      async () => {
        await reload();
        return (await lastRunColumn()).every((cell) => !cell.includes('never run'));
      },
      { what: 'every job to have run', ...PAGE_POLL },
    );
    const running = await browser.text();
    expect(running).toMatch(/Brokerage acme\s+ACTIVE/i);
    for (const job of ['crm-changes', 'offers-reconcile', 'marketplace', 'outbox-drain', 'inbox-drain'])
      expect(running).toContain(job);
    expect(running).toContain('StreetName is 57 characters; the service allows 50. Shorten it on the deal');
    expect(running).toContain('rejected: 400 StreetName too long');
    expect(running).toContain('no offer request or-404 is linked to brokerage acme');
    expect(running).toContain('offer event names a listing this brokerage does not own');
    expect(await browser.attribute('#errors-acme tbody th a', 'href')).toBe(
      'https://app.hubspot.com/contacts/1234567/record/0-3/901',
    );
    expect(await browser.count('#jobs-acme thead th[scope=col]')).toBe(7);
    expect(await browser.count('#jobs-acme tbody th[scope=row]')).toBe(5);
    expect(await browser.count('main section[aria-labelledby] h2')).toBe(1);
    expect(await browser.attribute('#reason-acme', 'name')).toBe('reason');
    expect(await browser.count('label[for=reason-acme]')).toBe(1);
    await shoot('1-running', /Pause brokerage acme/);

    // Pause the brokerage with a reason: the notice says so, every job shows paused.
    await browser.type('#reason-acme', 'CRM migration tonight');
    expect(await browser.submit('#b-acme form[action="/console/pause"] button')).toBe(200);
    expect(await browser.url()).toMatch(/\/console\?notice=[0-9a-f]+#b-acme$/);
    const paused = await browser.text();
    expect(paused).toContain('Paused brokerage acme.');
    expect(paused).toMatch(/Brokerage acme\s+PAUSED/i);
    expect(paused).toContain('CRM migration tonight');

    // Its jobs stop: the last runs stay the same for three seconds (a run going when the pause landed
    // may still finish), nothing is running, and "Run now" is off.
    let last = '';
    let stableSince = Date.now();
    await waitFor(
      async () => {
        await reload();
        const now = (await lastRunColumn()).join('|');
        if (now !== last || now.includes('running')) {
          last = now;
          stableSince = Date.now();
        }
        return Date.now() - stableSince > 3_000;
      },
      { what: 'the paused jobs to stop', ...PAGE_POLL },
    );
    expect(await browser.count('#jobs-acme button[disabled]')).toBeGreaterThanOrEqual(5);
    expect(await browser.texts('#jobs-acme tbody td:nth-child(2)')).toEqual(
      Array(5).fill('paused (brokerage): CRM migration tonight'),
    );
    await shoot('2-paused', /PAUSED/i, UPDATE_DOCS_SCREENSHOT ? 'status-page.png' : undefined);

    // Replay the dead command: it leaves the list and waits as pending (the drain is paused).
    expect(
      await browser.submit(`#commands-acme form input[name=id][value="${deadCommandId}"] ~ button`),
    ).toBe(200);
    const replayed = await browser.text();
    expect(replayed).toContain('Replayed 1 outbox command(s) of acme');
    expect(replayed).not.toContain('rejected: 400 StreetName too long');
    expect(await browser.texts('#b-acme table.counts tbody tr')).toContain('pending 1');
    await shoot('3-replayed', /Replayed 1 outbox command/);

    // Resume: the jobs run again.
    expect(await browser.submit('#b-acme form[action="/console/resume"] button')).toBe(200);
    expect(await browser.text()).toContain('Resumed brokerage acme.');
    const stopped = last;
    await waitFor(
      async () => {
        await reload();
        return (await lastRunColumn()).join('|') !== stopped;
      },
      { what: 'the jobs to run again', ...PAGE_POLL },
    );
    await shoot('4-resumed', /Brokerage acme\s+ACTIVE/i);
  });

  it('refuses posts without the form token or from another origin', async () => {
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${admin}/console/pause`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body,
        redirect: 'manual',
      });
    expect((await post({}, 'brokerage=acme')).status).toBe(403);
    expect((await post({}, 'brokerage=acme&_csrf=guess')).status).toBe(403);
    await reload();
    const token = (await browser.attribute('input[name=_csrf]', 'value'))!;
    const foreign = await post({ origin: 'http://evil.example' }, `brokerage=acme&_csrf=${token}`);
    expect(foreign.status).toBe(403);
    const crossSite = await post({ 'sec-fetch-site': 'cross-site' }, `brokerage=acme&_csrf=${token}`);
    expect(crossSite.status).toBe(403);
    // Nothing was paused by any of them.
    await reload();
    expect(await browser.text()).toMatch(/Brokerage acme\s+ACTIVE/i);
    // The webhook listener does not serve the page.
    const webhook = await fetch(`http://127.0.0.1:${env.WEBHOOK_PORT}/console`);
    expect(webhook.status).toBe(404);
  });

  // A form edited to name a brokerage no file names was answered "Started marketplace of brokerage
  // nope." while the run failed in the log at error level, and its replay "Replayed 0 ...".
  it('refuses a form naming a brokerage no file names, and starts or replays nothing', async () => {
    await reload();
    const token = (await browser.attribute('input[name=_csrf]', 'value'))!;
    const notice = async (action: string, body: string): Promise<string[]> => {
      const answer = await fetch(`${admin}/console/${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: admin },
        body: `${body}&_csrf=${token}`,
        redirect: 'manual',
      });
      expect(answer.status).toBe(303);
      expect(await browser.goto(new URL(answer.headers.get('location')!, admin).href)).toBe(200);
      return browser.texts('.notice');
    };
    const unknown = 'no brokerage "nope" is configured';
    expect(await notice('run', 'brokerage=nope&job=marketplace')).toEqual([expect.stringContaining(unknown)]);
    expect(await notice('replay', 'brokerage=nope&kind=commands')).toEqual([
      expect.stringContaining(unknown),
    ]);
    expect(await notice('replay', 'brokerage=nope&kind=events')).toEqual([expect.stringContaining(unknown)]);
    expect(await notice('run', 'brokerage=acme&job=nope')).toEqual([
      'no job "nope" (jobs: crm-changes, offers-reconcile, marketplace, outbox-drain, inbox-drain)',
    ]);
    expect(daemon.stdout()).not.toContain('run now of marketplace for nope');
  });

  it('puts problems first: a brokerage that fails to load, dead work with its totals, the open alert', async () => {
    // 55 more record errors than the page lists: it says how many there are and where to see them.
    const ledger = await openLedger({ databasePath: env.LEDGER_PATH! });
    try {
      for (let i = 0; i < 55; i += 1)
        await ledger.recordErrors.record({
          brokerageId: 'acme',
          recordKind: 'deal',
          recordRef: String(1000 + i),
          message: `bad deal ${i}`,
          code: 'INVALID_RECORD',
        });
    } finally {
      await ledger.close();
    }
    const broken = join(env.CONFIG_DIR!, 'beta.yaml');
    writeFileSync(broken, 'id: beta\ncashOffer: {}\n');
    const reloaded = () =>
      daemon
        .stdout()
        .split('\n')
        .filter((l) => l.includes('config reloaded')).length;
    const before = reloaded();
    daemon.child.kill('SIGHUP');
    await waitFor(() => reloaded() > before, { what: 'the config to reload', ...DAEMON_WAIT });
    await waitFor(
      async () => {
        await reload();
        return (await browser.texts('#alerts tbody tr')).some((row) =>
          row.includes('brokerage beta failed to load'),
        );
      },
      { what: 'the unloaded brokerage to raise an alert', ...PAGE_POLL },
    );
    const page = await browser.text();
    expect(page).toMatch(/brokerage beta failed to load and is not synced/);
    // The unready brokerage comes first, with what is wrong.
    expect(await browser.texts('main section h2')).toEqual([
      expect.stringMatching(/^Brokerage beta FAILED TO LOAD$/i),
      expect.stringMatching(/^Brokerage acme ACTIVE$/i),
    ]);
    expect(page).toContain('crm is required');
    // The 55 seeded, the one from the start, and any the daemon's own runs recorded since.
    const [caption] = await browser.texts('#errors-acme caption');
    const total = Number(/\(50 of (\d+); cli errors --brokerage acme lists them all\)/.exec(caption)?.[1]);
    expect(total).toBeGreaterThanOrEqual(56);
    rmSync(broken);
    const again = reloaded();
    daemon.child.kill('SIGHUP');
    await waitFor(() => reloaded() > again, { what: 'the config to reload', ...DAEMON_WAIT });
  });

  it('a job paused on its own stays visible under its brokerage pause', async () => {
    expect(
      (await runCli(['pause', '--brokerage', 'acme', '--job', 'marketplace', '--reason', 'slow feed'], env))
        .code,
    ).toBe(0);
    expect((await runCli(['pause', '--brokerage', 'acme', '--reason', 'maintenance'], env)).code).toBe(0);
    await reload();
    const states = await browser.texts('#jobs-acme tbody td:nth-child(2)');
    expect(states[2]).toContain('paused (brokerage): maintenance');
    expect(states[2]).toContain('and paused on its own');
    expect(states[2]).toContain('slow feed');
    expect((await runCli(['resume', '--brokerage', 'acme'], env)).code).toBe(0);
    await reload();
    expect((await browser.texts('#jobs-acme tbody td:nth-child(2)'))[2]).toBe('paused: slow feed');
    expect((await runCli(['resume', '--brokerage', 'acme', '--job', 'marketplace'], env)).code).toBe(0);
  });

  it('fits a phone: no wider than a 390 px screen, and an action’s notice is on screen after it', async () => {
    await browser.viewport(390, 844);
    try {
      await reload();
      expect(await browser.pageWidth()).toBeLessThanOrEqual(390);
      await browser.type('#reason-acme', 'phone check');
      expect(await browser.submit('#b-acme form[action="/console/pause"] button')).toBe(200);
      expect(await browser.inView('#b-acme .notice')).toBe(true);
      expect(await browser.texts('#b-acme .notice')).toEqual([
        expect.stringContaining('Paused brokerage acme.'),
      ]);
      expect(await browser.submit('#b-acme form[action="/console/resume"] button')).toBe(200);
      expect(await browser.inView('#b-acme .notice')).toBe(true);
      expect(await browser.pageWidth()).toBeLessThanOrEqual(390);
    } finally {
      await browser.viewport(1280, 900);
    }
  });

  // Saves a full-page screenshot, checks it is a real image of the page in the state the text shows.
  async function shoot(name: string, shows: RegExp, docsName?: string): Promise<void> {
    expect(await browser.text()).toMatch(shows);
    const path = await browser.screenshot(join(dir, `${name}.png`));
    const png = readFileSync(path);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(1280); // width
    expect(png.readUInt32BE(20)).toBeGreaterThan(900); // the whole page, not one screen
    if (docsName) {
      mkdirSync(join(ROOT, 'docs', 'images'), { recursive: true });
      copyFileSync(path, join(ROOT, 'docs', 'images', docsName));
    }
  }
});

// What an operator would find after a bad day: a dead command, a dead and a flagged webhook event,
// and a record error whose message carries its fix. Returns the dead command's id.
async function seedLedger(path: string): Promise<number> {
  const ledger = await openLedger({ databasePath: path });
  try {
    await ledger.recordErrors.record({
      brokerageId: 'acme',
      recordKind: 'deal',
      recordRef: '901',
      field: 'StreetName',
      message:
        'StreetName is 57 characters; the service allows 50. Shorten it on the deal (property listing_street_name) and move the deal back to the trigger stage.',
      code: 'INVALID_RECORD',
    });
    const { command } = await ledger.outbox.enqueue({
      brokerageId: 'acme',
      idempotencyKey: 'push:deal-901',
      operation: 'push_to_marketplace',
      recordRef: 'deal-901',
      payload: {},
    });
    await ledger.outbox.markSending(command.id);
    await ledger.outbox.deadLetter(command.id, 'rejected: 400 StreetName too long');
    for (const [key, type, end] of [
      ['e-dead', 'offer_request_approved', 'dead'],
      ['e-flag', 'new_offer', 'flagged'],
    ] as const) {
      await ledger.inbox.storeIfNew({ brokerageId: 'acme', dedupeKey: key, eventType: type, payload: '{}' });
      const [event] = await ledger.inbox.claimDue(1, { brokerageId: 'acme' });
      if (end === 'dead')
        await ledger.inbox.deadLetter(event.id, 'no offer request or-404 is linked to brokerage acme');
      else await ledger.inbox.flag(event.id, 'offer event names a listing this brokerage does not own');
    }
    return command.id;
  } finally {
    await ledger.close();
  }
}
