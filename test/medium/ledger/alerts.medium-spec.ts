import { AlertRoutes } from '../../../src/alerts/alert-channels';
import { AlertDeliverer } from '../../../src/alerts/alert-deliverer.service';
import { AlertMonitor } from '../../../src/alerts/alert-monitor.service';
import { alertNotice } from '../../../src/alerts/alert-notice';
import { problemKey, type Problem } from '../../../src/alerts/alert-problems';
import type { CredentialWatch } from '../../../src/alerts/credential-watch.service';
import { ProblemFinder } from '../../../src/alerts/problem-finder.service';
import type { ConfigService } from '../../../src/config/config.service';
import { readDaemonSettings, type DaemonSettings } from '../../../src/config/daemon-settings';
import type { NoticeBuilder } from '../../../src/ledger/repositories/alert.repository';
import { outboxKey } from '../../../src/ledger/outbox-key';
import type { MetricsService } from '../../../src/observability/metrics/metrics.service';
import { JobPauseService } from '../../../src/scheduler/job-pause.service';
import { AwaitingEvidenceError } from '../../../src/sync/outbox/awaiting-evidence.error';
import { startWebhookReceiver } from '../../support/alert-receivers';
import { ledgerEngines, openTestLedger, type LedgerFixture } from '../../support/ledger-fixture';

const notice: NoticeBuilder = (alert, transition) => ({ ...alertNotice(alert, transition, 'test') });
const problem = (kind: Problem['kind'], brokerageId = 'acme', summary = 'broken'): Problem => ({
  key: problemKey(kind, brokerageId),
  kind,
  brokerageId,
  summary,
  more: 'cli status',
});
const CHANNELS = ['webhook', 'email'];
const NO_COUNTS = { read: 0, created: 0, updated: 0, unchanged: 0, failed: 0 };

// Alert state and notifications on each ledger engine, with a second Ledger on the same database
// standing in for a second worker: every change of state is written once, whoever sees it first.
describe.each(ledgerEngines())('alerts in the ledger (%s)', (engine) => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger(engine);
  });
  afterEach(async () => {
    await f.cleanup();
  });
  // Two workers at once on PostgreSQL; on SQLite (one daemon, and the CLI in another process) one
  // after the other: two connections of one process would wait on each other's lock.
  const both = async <T>(a: () => Promise<T>, b: () => Promise<T>): Promise<T[]> =>
    engine === 'postgres' ? Promise.all([a(), b()]) : [await a(), await b()];

  it('two workers opening, reminding of and resolving one problem at once notify each change once', async () => {
    const other = await f.openAnother();
    const p = problem('jobs_failing');
    const opened = await both(
      () => f.ledger.alerts.open(p, CHANNELS, notice),
      () => other.alerts.open(p, CHANNELS, notice),
    );
    expect(opened.map((o) => o.changed).sort()).toEqual([false, true]);
    expect(await f.ledger.alerts.deliveries()).toHaveLength(2);

    const reminded = await both(
      () => f.ledger.alerts.renotify(p.key, 1, 0, CHANNELS, notice),
      () => other.alerts.renotify(p.key, 1, 0, CHANNELS, notice),
    );
    expect(reminded.map((r) => r?.changed).sort()).toEqual([false, true]);

    const resolved = await both(
      () => f.ledger.alerts.resolve(p.key, 1, CHANNELS, notice),
      () => other.alerts.resolve(p.key, 1, CHANNELS, notice),
    );
    expect(resolved.map((r) => r?.changed).sort()).toEqual([false, true]);
    const deliveries = await f.ledger.alerts.deliveries();
    expect(deliveries.map((d) => (d.notice as { state: string; reminder: boolean }).state).sort()).toEqual([
      'firing',
      'firing',
      'firing',
      'firing',
      'resolved',
      'resolved',
    ]);
    expect(await f.ledger.alerts.get(p.key)).toMatchObject({ state: 'resolved', episode: 1 });

    // Back again: a new episode, notified again.
    f.clock.advance(60_000);
    expect((await other.alerts.open(p, CHANNELS, notice)).changed).toBe(true);
    expect(await f.ledger.alerts.get(p.key)).toMatchObject({ state: 'firing', episode: 2, renotified: 0 });
    expect(await f.ledger.alerts.deliveries()).toHaveLength(8);

    // A worker that saw episode 1 firing and then found the problem gone resolves that episode only,
    // and one that found it due a reminder reminds of that episode only.
    expect((await f.ledger.alerts.resolve(p.key, 1, CHANNELS, notice))?.changed).toBe(false);
    expect((await f.ledger.alerts.renotify(p.key, 1, 0, CHANNELS, notice))?.changed).toBe(false);
    expect(await f.ledger.alerts.get(p.key)).toMatchObject({ state: 'firing', episode: 2 });
    expect(await f.ledger.alerts.deliveries()).toHaveLength(8);
  });

  it('a look that began before another worker opened an alert does not resolve it', async () => {
    const other = await f.openAnother();
    const p = problem('credential_refused');
    // The other worker sees the problem and opens its alert while this one is still looking, after
    // this one's look found it absent.
    const finder = {
      observe: async () => {
        const seen = { problems: [], checked: new Set([p.key]), brokerages: new Set(['acme']) };
        await other.alerts.open(p, CHANNELS, notice);
        return seen;
      },
    } as unknown as ProblemFinder;
    const monitor = new AlertMonitor(
      finder,
      f.ledger.alerts,
      { kick: async () => undefined } as unknown as AlertDeliverer,
      {} as CredentialWatch,
      {} as MetricsService,
      { namesFor: () => CHANNELS, configured: true } as unknown as AlertRoutes,
      { alerts: { renotifyMs: null } } as unknown as Pick<DaemonSettings, 'alerts'>,
    );
    await monitor.check();
    expect(await f.ledger.alerts.get(p.key)).toMatchObject({ state: 'firing', episode: 1 });
    expect((await f.ledger.alerts.deliveries()).map((d) => d.dedupeKey).sort()).toEqual([
      `${p.key}#1:firing:0:email`,
      `${p.key}#1:firing:0:webhook`,
    ]);
  });

  it('hands each due notification to one sender, and again to another after a sender died holding it', async () => {
    const other = await f.openAnother();
    await f.ledger.alerts.open(problem('dead_work'), CHANNELS, notice);
    await f.ledger.alerts.open(problem('work_stale'), CHANNELS, notice);
    const [a, b] = await both(
      () => f.ledger.alerts.claimDue(10, 60_000),
      () => other.alerts.claimDue(10, 60_000),
    );
    expect([...a, ...b].map((d) => d.id).sort()).toEqual(
      (await f.ledger.alerts.deliveries()).map((d) => d.id).sort(),
    );
    expect(new Set([...a, ...b].map((d) => d.id)).size).toBe(4);
    expect(await f.ledger.alerts.claimDue(10, 60_000)).toEqual([]);
    f.clock.advance(61_000);
    expect(await other.alerts.claimDue(10, 60_000)).toHaveLength(4);
  });

  const finderOf = (config: ConfigService, settings: DaemonSettings) =>
    new ProblemFinder(
      config,
      new JobPauseService(f.ledger.pauses, config),
      f.ledger.runs,
      f.ledger.outbox,
      f.ledger.inbox,
      f.clock,
      settings,
    );

  it('finds what needs a person in the ledger: dead work, work waiting too long, unknown outcomes, failing jobs', async () => {
    const settings = readDaemonSettings({
      ALERT_WORK_AGE_MINUTES: '30',
      ALERT_UNKNOWN_AGE_MINUTES: '60',
      ALERT_JOB_FAILURES: '3',
    });
    const config = {
      brokerages: () => [
        { id: 'acme', config: { enabled: true } },
        { id: 'beta', config: { enabled: true } },
      ],
      unreadyBrokerages: () => new Map([['gamma', [{ file: 'gamma.yaml', message: 'crm.kind is missing' }]]]),
      get: (id: string) => (id === 'gamma' ? undefined : { id, config: { enabled: true } }),
    } as unknown as ConfigService;
    const finder = finderOf(config, settings);
    const enqueue = async (brokerageId: string, ref: string) =>
      (
        await f.ledger.outbox.enqueue({
          brokerageId,
          idempotencyKey: outboxKey(brokerageId, ref, 'create_offer_request'),
          operation: 'create_offer_request',
          recordRef: ref,
          payload: {},
        })
      ).command;
    const waiting = await enqueue('acme', 'deal:1');
    const dead = await enqueue('acme', 'deal:2');
    await f.ledger.outbox.markSending(dead.id);
    await f.ledger.outbox.deadLetter(dead.id, 'refused');
    const unknown = await enqueue('beta', 'deal:3');
    await f.ledger.outbox.markSending(unknown.id);
    await f.ledger.outbox.recordUnknown(unknown.id, 'timed out');
    for (let i = 0; i < 3; i += 1) {
      const run = await f.ledger.runs.start('beta', 'marketplace');
      await f.ledger.runs.finish(run.id, {
        status: 'failed',
        counts: NO_COUNTS,
        error: `the service failed with 503 (${i})`,
      });
    }

    const now = await finder.observe();
    expect(now.problems.map((p) => p.key).sort()).toEqual([
      'brokerage_unloaded:gamma',
      'dead_work:acme',
      'jobs_failing:beta',
    ]);
    expect(now.problems.find((p) => p.kind === 'jobs_failing')!.summary).toContain(
      'marketplace failed 3 run(s) in a row',
    );
    expect(now.problems.find((p) => p.kind === 'dead_work')!.summary).toContain('1 command(s) dead-lettered');
    expect(now.checked.has('work_stale:acme')).toBe(true);

    f.clock.advance(61 * 60_000);
    const later = (await finder.observe()).problems.map((p) => p.key).sort();
    expect(later).toEqual([
      'brokerage_unloaded:gamma',
      'dead_work:acme',
      'jobs_failing:beta',
      'unknown_outcomes:beta',
      'work_stale:acme',
    ]);
    expect(waiting.state).toBe('pending');

    // A success ends the streak; a paused brokerage is not failing.
    const ok = await f.ledger.runs.start('beta', 'marketplace');
    await f.ledger.runs.finish(ok.id, { status: 'succeeded', counts: NO_COUNTS });
    await f.ledger.pauses.pause('acme', 'credential:crm', 'the CRM refused the token');
    const after = await finder.observe();
    expect(after.problems.map((p) => p.key)).not.toContain('jobs_failing:beta');
    expect(after.problems.find((p) => p.key === 'credential_refused:acme:crm')?.summary).toContain(
      'the CRM refused the token',
    );
  });

  it('does not call a command waiting for the service to name what it made stale work; a CRM write failing as long is', async () => {
    const settings = readDaemonSettings({ ALERT_WORK_AGE_MINUTES: '30' });
    const config = {
      brokerages: () => [{ id: 'acme', config: { enabled: true } }],
      unreadyBrokerages: () => new Map(),
      get: (id: string) => ({ id, config: { enabled: true } }),
    } as unknown as ConfigService;
    const finder = finderOf(config, settings);
    const writeBack = async (ref: string, error: Error) => {
      const { command } = await f.ledger.outbox.enqueue({
        brokerageId: 'acme',
        idempotencyKey: outboxKey('acme', ref, 'write_back:1'),
        operation: 'write_back',
        recordRef: ref,
        payload: {},
      });
      await f.ledger.outbox.markSending(command.id);
      await f.ledger.outbox.fail(command.id, error.message, new Date(f.clock.nowMs() + 60_000));
    };
    await writeBack('deal:1', new AwaitingEvidenceError('deal 1: the request id is not known yet'));
    f.clock.advance(31 * 60_000);
    expect((await finder.observe()).problems.map((p) => p.key)).toEqual([]);
    await writeBack('deal:2', new Error('the CRM answered 503'));
    f.clock.advance(31 * 60_000);
    const stale = (await finder.observe()).problems.find((p) => p.key === 'work_stale:acme');
    expect(stale?.summary).toContain('write_back for deal:2');
  });

  it('retries a notification the receiver refused, shows the channel failing meanwhile, and delivers it', async () => {
    const receiver = await startWebhookReceiver('a-secret-of-sixteen-chars');
    try {
      const settings = readDaemonSettings({
        ALERT_WEBHOOK_URL: receiver.url,
        ALERT_WEBHOOK_SECRET: 'a-secret-of-sixteen-chars',
        ALERT_DELIVERY_ATTEMPTS: '3',
      });
      const deliverer = new AlertDeliverer(
        f.ledger.alerts,
        new AlertRoutes(settings.alerts, () => undefined),
        f.clock,
        settings,
      );
      await f.ledger.alerts.open(problem('dead_work'), ['webhook'], notice);
      receiver.failNext(1, 503);
      await deliverer.kick();
      expect(receiver.received).toHaveLength(0);
      const [health] = await f.ledger.alerts.channelHealth();
      expect(health).toMatchObject({
        channel: 'webhook',
        pending: 1,
        lastError: 'the receiver answered 503',
      });

      f.clock.advance(31 * 60_000);
      await deliverer.kick();
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0].signatureValid).toBe(true);
      expect(receiver.received[0].json).toMatchObject({
        kind: 'dead_work',
        state: 'firing',
        brokerage: 'acme',
      });
      expect((await f.ledger.alerts.channelHealth())[0]).toMatchObject({
        delivered: 1,
        pending: 0,
        lastError: null,
      });

      // A receiver that never takes it: given up after ALERT_DELIVERY_ATTEMPTS, and said so.
      await f.ledger.alerts.open(problem('work_stale'), ['webhook'], notice);
      receiver.failNext(100, 500);
      for (let i = 0; i < 3; i += 1) {
        await deliverer.kick();
        f.clock.advance(31 * 60_000);
      }
      expect((await f.ledger.alerts.channelHealth())[0]).toMatchObject({
        delivered: 1,
        failed: 1,
        lastError: 'the receiver answered 500',
      });
    } finally {
      await receiver.close();
    }
  });
});
