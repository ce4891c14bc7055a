import { openLedger } from '../../../src/ledger/ledger';
import { ManualClock } from '../../../src/common/clock';
import {
  baseEnv,
  brokerageConfig,
  makeWorkspace,
  runCli,
  writeBrokerage,
  type Workspace,
} from './daemon.fixtures';

jest.setTimeout(60_000);

// Every CLI command, as tables and as --json, on a ledger seeded with runs, record errors, outbox
// commands and inbox events of two brokerages.
describe('cli commands', () => {
  let ws: Workspace;
  let env: NodeJS.ProcessEnv;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    ws = makeWorkspace();
    writeBrokerage(ws, brokerageConfig('acme'));
    writeBrokerage(ws, brokerageConfig('bolt'));
    env = baseEnv(ws, 0, ['acme', 'bolt']);
    delete env.LOG_LEVEL; // the CLI's default (warn) keeps stderr quiet
    const clock = new ManualClock(new Date('2026-03-01T09:00:00Z'));
    const ledger = await openLedger({ databasePath: ws.ledgerPath, clock });
    try {
      const zero = { read: 0, created: 0, updated: 0, unchanged: 0, failed: 0 };
      const run1 = await ledger.runs.start('acme', 'marketplace');
      clock.advance(2500);
      await ledger.runs.finish(run1.id, {
        status: 'succeeded',
        counts: { ...zero, read: 40, created: 3, unchanged: 37 },
      });
      const run2 = await ledger.runs.start('acme', 'crm-changes');
      clock.advance(800);
      await ledger.runs.finish(run2.id, {
        status: 'failed',
        counts: { ...zero, read: 5, failed: 5 },
        error: 'HubSpot answered 401: token expired',
      });
      const run3 = await ledger.runs.start('bolt', 'marketplace');
      clock.advance(61_000);
      await ledger.runs.finish(run3.id, {
        status: 'interrupted',
        counts: { ...zero, read: 12, updated: 12 },
      });

      await ledger.recordErrors.record({
        brokerageId: 'acme',
        recordKind: 'listing',
        recordRef: 'deal-901',
        field: 'StreetName',
        message: 'StreetName is 57 characters; the service allows 50',
        code: 'INVALID_RECORD',
      });
      await ledger.recordErrors.record({
        brokerageId: 'bolt',
        recordKind: 'offer',
        recordRef: 'offer-7',
        message: 'The offer is no longer active',
      });

      const command = async (key: string, end: 'dead' | 'failed' | 'done' | 'unknown') => {
        const { command: c } = await ledger.outbox.enqueue({
          brokerageId: 'acme',
          idempotencyKey: key,
          operation: 'createOfferRequest',
          recordRef: key,
          payload: {},
        });
        await ledger.outbox.markSending(c.id);
        if (end === 'dead') await ledger.outbox.deadLetter(c.id, 'rejected: 400 StreetName too long');
        if (end === 'failed')
          await ledger.outbox.fail(c.id, '429 rate limited', new Date('2026-03-01T10:00:00Z'));
        if (end === 'done') await ledger.outbox.complete(c.id, { id: 'or-1' });
        if (end === 'unknown') await ledger.outbox.recordUnknown(c.id, 'timed out after 10000 ms');
        return c.id;
      };
      ids.deadCommand = await command('cmd-dead', 'dead');
      ids.failedCommand = await command('cmd-failed', 'failed');
      await command('cmd-done', 'done');
      ids.unknownCommand = await command('cmd-unknown', 'unknown');

      const event = async (brokerageId: string, key: string) => {
        const { id } = await ledger.inbox.storeIfNew({
          brokerageId,
          dedupeKey: key,
          eventType: 'new_offer',
          payload: '{}',
        });
        await ledger.inbox.deadLetter(id, 'offer request unknown after 6 attempts');
        return id;
      };
      ids.acmeEvent = await event('acme', 'ev-1');
      ids.boltEvent = await event('bolt', 'ev-2');
    } finally {
      await ledger.close();
    }
  });
  afterAll(() => ws.cleanup());

  const cli = async (...args: string[]) => {
    const result = await runCli(args, env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return result.stdout;
  };

  it('status: last run per job, outbox and inbox depth, open errors', async () => {
    // Read-only commands run side by side to keep the suite quick.
    const [table, jsonText] = await Promise.all([
      cli('status'),
      cli('status', '--json', '--brokerage', 'acme'),
    ]);
    expect(table).toContain('Daemon: not running');
    expect(table).toContain('Brokerage acme (');
    expect(table).toMatch(/marketplace\s+1\s+succeeded\s+2026-03-01 09:00:00Z\s+2\.5s\s+40\s+3\s+0\s+37\s+0/);
    expect(table).toMatch(/crm-changes\s+2\s+failed\s+.*HubSpot answered 401: token expired/);
    expect(table).toMatch(/inbox-drain\s+-\s+never run/);
    expect(table).toContain('Outbox: done 1, failed 1, unknown 1, dead 1');
    expect(table).toContain('Inbox: dead 1');
    expect(table).toContain('Open record errors: 1 (see: cli errors --brokerage acme)');
    expect(table).toMatch(/Brokerage bolt[\s\S]*marketplace\s+3\s+interrupted\s+\S+ \S+\s+1m01s/);

    const json = JSON.parse(jsonText);
    expect(json.daemon).toEqual({ running: false, pid: null });
    expect(json.brokerages).toHaveLength(1);
    expect(json.brokerages[0]).toMatchObject({
      id: 'acme',
      enabled: true,
      outbox: { pending: 0, done: 1, failed: 1, dead: 1 },
      inbox: { dead: 1, pending: 0 },
      openErrors: 1,
    });
    expect(json.brokerages[0].jobs).toContainEqual({
      job: 'marketplace',
      lastRun: expect.objectContaining({
        id: 1,
        status: 'succeeded',
        durationMs: 2500,
        counts: { read: 40, created: 3, updated: 0, unchanged: 37, failed: 0 },
      }),
      paused: null,
    });
  });

  it('runs: newest first, with filters and a limit', async () => {
    const [table, filtered, limited, bad] = await Promise.all([
      cli('runs'),
      cli('runs', '--json', '--brokerage', 'acme', '--job', 'marketplace'),
      cli('runs', '--json', '--limit', '1'),
      runCli(['runs', '--job', 'nightly'], env),
    ]);
    const lines = table.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+BROKERAGE\s+JOB\s+STATUS\s+STARTED\s+TOOK\s+READ/);
    expect(lines.slice(1).map((l) => l.trim().split(/\s+/)[0])).toEqual(['3', '2', '1']);

    const json = JSON.parse(filtered);
    expect(json.runs).toEqual([
      expect.objectContaining({ id: 1, brokerageId: 'acme', job: 'marketplace', status: 'succeeded' }),
    ]);
    expect(JSON.parse(limited).runs.map((r: { id: number }) => r.id)).toEqual([3]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain(
      '--job must be one of crm-changes, offers-reconcile, marketplace, outbox-drain, inbox-drain',
    );
  });

  it('errors: open record errors with the message the agent sees', async () => {
    const [table, jsonText] = await Promise.all([
      cli('errors'),
      cli('errors', '--json', '--brokerage', 'bolt'),
    ]);
    expect(table).toMatch(
      /acme\s+listing deal-901\s+StreetName\s+StreetName is 57 characters; the service allows 50\s+1/,
    );
    expect(table).toMatch(/bolt\s+offer offer-7\s+-\s+The offer is no longer active/);
    const json = JSON.parse(jsonText);
    expect(json.errors).toEqual([
      expect.objectContaining({
        brokerageId: 'bolt',
        recordRef: 'offer-7',
        field: null,
        message: 'The offer is no longer active',
        occurrences: 1,
      }),
    ]);
  });

  it('replay: dead-lettered events and failed or dead commands, by brokerage or id', async () => {
    const refused = await runCli(['replay', '--events'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('replay needs --brokerage <id> or --id <n>');
    // A typo is refused, naming the brokerages there are: it used to say "replayed 0" and exit 0.
    for (const kind of ['--events', '--commands']) {
      const typo = await runCli(['replay', kind, '--brokerage', 'acmee'], env);
      expect(typo.code).toBe(1);
      expect(typo.stderr).toMatch(/no brokerage "acmee" is configured in .* \(known: .*acme.*\)/);
    }

    expect(await cli('replay', '--events', '--id', String(ids.boltEvent))).toContain(
      `replayed 1 dead-lettered inbox event(s) (id ${ids.boltEvent})`,
    );
    expect(JSON.parse(await cli('replay', '--events', '--brokerage', 'acme', '--json'))).toEqual({
      kind: 'events',
      brokerageId: 'acme',
      replayed: 1,
    });
    expect(await cli('replay', '--commands', '--brokerage', 'acme')).toContain(
      'replayed 2 failed or dead outbox command(s) (brokerage acme)',
    );

    const after = JSON.parse(await cli('status', '--json'));
    const acme = after.brokerages.find((b: { id: string }) => b.id === 'acme');
    expect(acme.outbox).toMatchObject({ pending: 2, done: 1, failed: 0, dead: 0 });
    expect(acme.inbox).toMatchObject({ pending: 1, dead: 0 });
    expect(after.brokerages.find((b: { id: string }) => b.id === 'bolt').inbox).toMatchObject({
      pending: 1,
      dead: 0,
    });
    // The command of unknown outcome was left alone.
    expect(acme.outbox).toMatchObject({ unknown: 1 });
  });

  it('replay --unknown: only by id, only with --confirm-absent', async () => {
    const id = String(ids.unknownCommand);
    const unconfirmed = await runCli(['replay', '--commands', '--unknown', '--id', id], env);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toContain('replay --unknown needs --commands, --id <n> and --confirm-absent');
    const byBrokerage = await runCli(
      ['replay', '--commands', '--unknown', '--confirm-absent', '--brokerage', 'acme'],
      env,
    );
    expect(byBrokerage.code).toBe(1);
    expect(await cli('replay', '--commands', '--unknown', '--confirm-absent', '--id', id)).toContain(
      `replayed 1 outbox command(s) of unknown outcome (id ${id})`,
    );
    const acme = JSON.parse(await cli('status', '--json')).brokerages[0];
    expect(acme.outbox).toMatchObject({ unknown: 0, pending: 3 });
  });

  it('confirm-received: by id, only a command of unknown outcome its executor can finish without an answer', async () => {
    const ledger = await openLedger({ databasePath: ws.ledgerPath });
    let counter: number;
    try {
      const { command } = await ledger.outbox.enqueue({
        brokerageId: 'acme',
        idempotencyKey: 'cmd-counter-unknown',
        operation: 'counter_offer',
        recordRef: 'deal:77',
        payload: { offerId: 7001, requestId: 501 },
      });
      await ledger.outbox.markSending(command.id);
      await ledger.outbox.recordUnknown(command.id, 'the gateway answered 502');
      counter = command.id;
    } finally {
      await ledger.close();
    }

    const noId = await runCli(['confirm-received', '--brokerage', 'acme'], env);
    expect(noId.code).toBe(1);
    expect(noId.stderr).toContain('confirm-received needs --id <n>');
    // Another brokerage's command, one done, one no executor finishes without an answer: refused
    // each with why, nothing changed.
    const refused = await runCli(
      ['confirm-received', '--id', `${counter},${ids.deadCommand}`, '--brokerage', 'bolt'],
      env,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`not confirmed: command ${counter} belongs to brokerage acme, not bolt`);
    const notUnknown = await runCli(['confirm-received', '--id', String(ids.deadCommand)], env);
    expect(notUnknown.stderr).toContain(
      `not confirmed: command ${ids.deadCommand} is pending, not of unknown outcome`,
    );

    expect(await cli('confirm-received', '--id', String(counter))).toContain(
      `confirmed received: command ${counter} (counter_offer for deal:77); the daemon's next outbox drain finishes it`,
    );
    const again = await runCli(['confirm-received', '--id', String(counter), '--json'], env);
    expect(JSON.parse(again.stdout)).toEqual([
      { id: counter, confirmed: true, operation: 'counter_offer', recordRef: 'deal:77', brokerageId: 'acme' },
    ]);
    const check = await openLedger({ databasePath: ws.ledgerPath });
    try {
      // Still unknown until a drain finishes it, due at once; never sent again.
      expect(await check.outbox.get(counter)).toMatchObject({
        state: 'unknown',
        attempts: 1,
        receivedConfirmedAt: expect.any(Date),
      });
    } finally {
      await check.close();
    }
  });

  it('confirm-received --request: links the deal of one create whose answer was lost to the request the operator found', async () => {
    const ledger = await openLedger({ databasePath: ws.ledgerPath });
    let create: number;
    try {
      const { command } = await ledger.outbox.enqueue({
        brokerageId: 'acme',
        idempotencyKey: 'cmd-create-unknown',
        operation: 'create_offer_request',
        recordRef: 'deal:78',
        payload: { request: { offer_request_asking: 300_000 }, property: { StreetNumber: '78' } },
      });
      await ledger.outbox.markSending(command.id);
      await ledger.outbox.recordUnknown(command.id, 'the gateway answered 502');
      create = command.id;
      await ledger.links.upsertLinks('acme', 'offer_request', [
        { remoteId: '9100', crmId: '79', contentHash: '' },
      ]);
    } finally {
      await ledger.close();
    }

    const two = await runCli(
      ['confirm-received', '--id', `${create},${create + 1}`, '--request', '9101'],
      env,
    );
    expect(two.code).toBe(1);
    expect(two.stderr).toContain('confirm-received --request names the request of one create: give one --id');
    const taken = await runCli(['confirm-received', '--id', String(create), '--request', '9100'], env);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain("not linked: offer request 9100 is deal 79's already");
    expect(await cli('confirm-received', '--id', String(create), '--request', '9101')).toContain(
      `linked: deal 78 to offer request 9101 (command ${create}); the daemon's next outbox drain finishes the create`,
    );
    const check = await openLedger({ databasePath: ws.ledgerPath });
    try {
      expect(await check.links.find('acme', 'offer_request', '9101')).toMatchObject({ crmId: '78' });
      // Looked for at once by the next drain, which finds it by the link; never sent again.
      expect(await check.outbox.get(create)).toMatchObject({ state: 'unknown', attempts: 1 });
    } finally {
      await check.close();
    }
  });
});
