import { Logger } from '@nestjs/common';
import type { DiscoveryService } from '@nestjs/core';
import type { BrokerageCrms } from '../../../src/brokerages/brokerage-crms';
import type { CashOfferClients } from '../../../src/brokerages/cash-offer-clients';
import { CashOfferError, type CallOptions, type CashOfferClient } from '../../../src/cash-offer';
import type { LoadedBrokerage } from '../../../src/config/config.loader';
import type { ConfigService } from '../../../src/config/config.service';
import type { OutboxCommand } from '../../../src/ledger/entities';
import type { MetricsService } from '../../../src/observability/metrics/metrics.service';
import type { EarlyRunTrigger } from '../../../src/scheduler/early-run.trigger';
import { OutboxDrainService } from '../../../src/sync/outbox/outbox-drain.service';
import { OutboxExecutors } from '../../../src/sync/outbox/outbox.executors';
import { REGISTRATION_STREAM } from '../../../src/webhooks/webhook-registration';
import { WebhookRegistrationExecutor } from '../../../src/webhooks/webhook-registration.executor';
import { WebhookRegistrationOnConfig } from '../../../src/webhooks/webhook-registration.on-config';
import { WebhookRegistrationQueue } from '../../../src/webhooks/webhook-registration.queue';
import { LedgerFixture, openTestLedger } from '../../support/ledger-fixture';
import { DecisionHistoryRecorder } from '../../../src/sync/history/decision-history.recorder';

const SECRET = 'acme-secret-0123456789abcdefghij';
const ROTATED = 'acme-rotated-0123456789abcdefghi';
const urlWith = (secret: string) => `https://hooks.acme.test/webhooks/acme/${secret}`;

function brokerage(secret: string): LoadedBrokerage {
  return {
    id: 'acme',
    file: 'acme.yaml',
    fingerprint: secret,
    config: { enabled: true, webhooks: { publicBaseUrl: 'https://hooks.acme.test/' } },
    secrets: { webhookSecret: secret },
  } as unknown as LoadedBrokerage;
}

// The service's /wh as the client sees it: each call answers with the next scripted failure, if any.
class ScriptedService {
  readonly calls: string[] = [];
  private readonly failures: CashOfferError[] = [];
  private registered: string | undefined;

  registeredBefore(url: string): void {
    this.registered = url;
  }

  failNext(...errors: CashOfferError[]): void {
    this.failures.push(...errors);
  }

  client(): CashOfferClient {
    const answer = async (method: string, url: string, call?: CallOptions) => {
      await call?.beforeSend?.();
      this.calls.push(`${method} ${url}`);
      const failure = this.failures.shift();
      if (failure) throw failure;
      if (method === 'PATCH' && !this.registered)
        throw new CashOfferError({
          code: 'NOT_FOUND',
          operation: 'updateWebhook',
          message: 'no URL',
          status: 404,
        });
      this.registered = url;
      return { url };
    };
    return {
      registerWebhook: (url: string, call?: CallOptions) => answer('POST', url, call),
      updateWebhook: (url: string, call?: CallOptions) => answer('PATCH', url, call),
    } as unknown as CashOfferClient;
  }
}

const unavailable = () =>
  new CashOfferError({
    code: 'UNAVAILABLE',
    operation: 'registerWebhook',
    message: 'registerWebhook: ECONNREFUSED',
  });
const refused = () =>
  new CashOfferError({
    code: 'AUTH_FAILED',
    operation: 'registerWebhook',
    message: 'registerWebhook: 401 bad key',
    status: 401,
  });

describe('webhook registration as an outbox command (medium: a real SQLite ledger)', () => {
  let f: LedgerFixture;
  let service: ScriptedService;
  let current: LoadedBrokerage;
  let earlyRuns: string[];

  beforeAll(() => {
    Logger.overrideLogger(false);
  });
  beforeEach(async () => {
    f = await openTestLedger('sqlite');
    service = new ScriptedService();
    current = brokerage(SECRET);
    earlyRuns = [];
  });
  afterEach(async () => {
    await f.cleanup();
  });

  // What one daemon start builds over the ledger (a restart builds it again).
  function start() {
    const config = {
      enabledBrokerages: () => [current],
      get: () => current,
      onChange: () => () => undefined,
    } as unknown as ConfigService;
    const queue = new WebhookRegistrationQueue(f.ledger.outbox, f.ledger.cursors, f.clock);
    const trigger = {
      request: (id: string, job: string) => {
        earlyRuns.push(`${id}:${job}`);
        return Promise.resolve('queued');
      },
    } as unknown as EarlyRunTrigger;
    const executors = new OutboxExecutors({ getProviders: () => [] } as unknown as DiscoveryService);
    executors.register(
      'register_webhook',
      new WebhookRegistrationExecutor(f.ledger.cursors, f.ledger.recordErrors),
    );
    const drain = new OutboxDrainService(
      f.ledger.outbox,
      f.ledger.recordErrors,
      executors,
      { get: () => Promise.reject(new Error('the CRM is down')) } as unknown as BrokerageCrms,
      { get: () => service.client() } as unknown as CashOfferClients,
      { recordsSynced: () => undefined } as unknown as MetricsService,
      f.clock,
      new DecisionHistoryRecorder(f.ledger.history, f.ledger.outbox),
    );
    return {
      onStart: () => new WebhookRegistrationOnConfig(config, queue, trigger).onApplicationBootstrap(),
      drain: async () =>
        (
          await drain.drain({
            brokerage: current,
            runId: null,
            signal: new AbortController().signal,
            dryRun: false,
            progress: () => undefined,
          })
        ).counts,
      executeNow: (command: OutboxCommand) =>
        drain.executeNow(current, command, new AbortController().signal),
    };
  }

  it('sends a command two drains take at once exactly once, and neither run fails', async () => {
    await start().onStart();
    const [a, b] = await Promise.all([start().drain(), start().drain()]);
    expect(service.calls).toEqual([`POST ${urlWith(SECRET)}`]);
    expect(a.updated + b.updated).toBe(1);
    expect(a.failed + b.failed).toBe(0);
    const [command] = await commands();
    expect(command).toMatchObject({ state: 'done', attempts: 1 });
  });

  it('leaves a command another drain took since it was read: no second send, no failure, no error', async () => {
    const daemon = start();
    await daemon.onStart();
    const [read] = await commands();
    // Another worker (or register-webhooks) sends it first...
    await start().drain();
    // ...then this one gets to its stale copy.
    const after = await daemon.executeNow(read);
    expect(after).toMatchObject({ id: read.id, state: 'done', attempts: 1 });
    expect(service.calls).toEqual([`POST ${urlWith(SECRET)}`]);
    expect(await f.ledger.recordErrors.listOpen({ brokerageId: 'acme' })).toEqual([]);
  });

  const commands = (): Promise<OutboxCommand[]> =>
    f.ledger.outbox.listByState('acme', ['pending', 'sending', 'failed', 'unknown', 'dead', 'done']);

  it('queues one command per brokerage and URL however often the daemon starts, with neither URL nor secret in it', async () => {
    await start().onStart();
    await start().onStart();
    const queued = await commands();
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({
      operation: 'register_webhook',
      state: 'pending',
      recordRef: 'webhook:acme',
    });
    expect(queued[0].payload).toEqual({
      brokerageId: 'acme',
      urlHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(JSON.stringify(queued[0])).not.toContain(SECRET);
    expect(JSON.stringify(queued[0])).not.toContain('hooks.acme.test');
    expect(earlyRuns).toEqual(['acme:outbox-drain', 'acme:outbox-drain']);
  });

  it('registers with POST when drained, records the hash, and queues nothing at the next start', async () => {
    const daemon = start();
    await daemon.onStart();
    await daemon.drain();
    expect(service.calls).toEqual([`POST ${urlWith(SECRET)}`]);
    const [command] = await commands();
    expect(command).toMatchObject({ state: 'done', result: { outcome: 'registered' } });
    expect(await f.ledger.cursors.get('acme', REGISTRATION_STREAM)).toBe(
      (command.payload as { urlHash: string }).urlHash,
    );
    earlyRuns.length = 0;
    await start().onStart();
    expect(await commands()).toHaveLength(1);
    expect(earlyRuns).toEqual([]);
  });

  it('keeps a failed registration in the ledger, and the next start sends it again at once', async () => {
    service.failNext(unavailable());
    const first = start();
    await first.onStart();
    await first.drain();
    const [failed] = await commands();
    expect(failed).toMatchObject({
      state: 'failed',
      attempts: 1,
      lastError: 'registerWebhook: ECONNREFUSED',
    });
    expect(failed.nextAttemptAt!.getTime()).toBeGreaterThan(f.clock.nowMs());

    const restarted = start();
    await restarted.onStart();
    await restarted.drain();
    const after = await commands();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: failed.id, state: 'done', attempts: 2 });
    expect(service.calls).toEqual([`POST ${urlWith(SECRET)}`, `POST ${urlWith(SECRET)}`]);
  });

  it('retries a failure with the outbox backoff while the daemon runs', async () => {
    service.failNext(unavailable());
    const daemon = start();
    await daemon.onStart();
    await daemon.drain();
    await daemon.drain();
    expect(service.calls).toHaveLength(1);
    f.clock.advance(5_001);
    await daemon.drain();
    expect(await commands()).toEqual([expect.objectContaining({ state: 'done', attempts: 2 })]);
  });

  it('supersedes a queued registration when the secret changes: only the current URL is sent', async () => {
    service.failNext(unavailable());
    const first = start();
    await first.onStart();
    await first.drain();
    current = brokerage(ROTATED);
    const restarted = start();
    await restarted.onStart();
    f.clock.advance(15 * 60_000);
    await restarted.drain();
    const [old, fresh] = await commands();
    expect(old).toMatchObject({ state: 'done', result: { outcome: 'superseded' } });
    expect(fresh).toMatchObject({ state: 'done', result: { outcome: 'registered' } });
    expect(service.calls).toEqual([`POST ${urlWith(SECRET)}`, `POST ${urlWith(ROTATED)}`]);
  });

  it('updates with PATCH after a rotation, and registers again when the secret is rotated back', async () => {
    const daemon = start();
    await daemon.onStart();
    await daemon.drain();
    current = brokerage(ROTATED);
    await start().onStart();
    await daemon.drain();
    current = brokerage(SECRET);
    await start().onStart();
    await daemon.drain();
    expect(service.calls).toEqual([
      `POST ${urlWith(SECRET)}`,
      `PATCH ${urlWith(ROTATED)}`,
      `PATCH ${urlWith(SECRET)}`,
    ]);
    expect((await commands()).map((c) => c.state)).toEqual(['done', 'done', 'done']);
  });

  it('takes the other method when a service refuses one (which /wh method sets the URL when is not shown)', async () => {
    const said = (code: 'CONFLICT' | 'INVALID_RECORD', status: number) =>
      new CashOfferError({ code, operation: 'webhook', message: `webhook: ${status}`, status });
    const daemon = start();
    await daemon.onStart();
    // A service whose POST sets the URL once (409 when one is set already, here by an earlier
    // install whose ledger is gone) ...
    service.registeredBefore('https://hooks.acme.test/webhooks/acme/an-older-install');
    service.failNext(said('CONFLICT', 409));
    await daemon.drain();
    current = brokerage(ROTATED);
    await start().onStart();
    // ... and whose PATCH refuses (422) where it would rather be POSTed.
    service.failNext(said('INVALID_RECORD', 422));
    await daemon.drain();
    expect(service.calls).toEqual([
      `POST ${urlWith(SECRET)}`,
      `PATCH ${urlWith(SECRET)}`,
      `PATCH ${urlWith(ROTATED)}`,
      `POST ${urlWith(ROTATED)}`,
    ]);
    expect((await commands()).map((c) => c.state)).toEqual(['done', 'done']);
  });

  it('does not try the other method for a refused key', async () => {
    const daemon = start();
    await daemon.onStart();
    service.failNext(refused());
    await daemon.drain();
    expect(service.calls).toEqual([`POST ${urlWith(SECRET)}`]);
  });

  // A refused key (401) is the brokerage's, not the command's: the registration waits for the key to
  // work (the credential watch pauses the brokerage meanwhile), with a record error naming it.
  it('keeps a registration refused for its key waiting, with a record error naming the brokerage; the next start sends it', async () => {
    service.failNext(refused());
    const first = start();
    await first.onStart();
    await first.drain();
    const [waiting] = await commands();
    expect(waiting).toMatchObject({ state: 'failed', lastError: 'registerWebhook: 401 bad key' });
    const errors = await f.ledger.recordErrors.listOpen({ brokerageId: 'acme' });
    expect(errors).toEqual([
      expect.objectContaining({ recordKind: 'webhook', recordRef: 'acme', code: 'AUTH_FAILED' }),
    ]);

    const restarted = start();
    await restarted.onStart();
    await restarted.drain();
    expect(await commands()).toEqual([expect.objectContaining({ id: waiting.id, state: 'done' })]);
    expect(await f.ledger.recordErrors.listOpen({ brokerageId: 'acme' })).toEqual([]);
  });
});
