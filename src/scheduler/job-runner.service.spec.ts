// Nest's decorators, Logger and DiscoveryService as inert stand-ins (nest-stand-ins.testing.ts).
jest.mock('@nestjs/common', () =>
  jest
    .requireActual<typeof import('./nest-stand-ins.testing')>('./nest-stand-ins.testing')
    .nestCommonStandIn(jest.requireActual('@nestjs/common')),
);
jest.mock('@nestjs/core', () =>
  jest.requireActual<typeof import('./nest-stand-ins.testing')>('./nest-stand-ins.testing').nestCoreStandIn(),
);

import { waitFor } from '../../test/support/wait-for';
import { currentCallPriority } from '../common/call-priority';
import { ManualClock } from '../common/clock';
import type { ConfigService } from '../config/config.service';
import type { LoadedBrokerage } from '../config/config.loader';
import { LedgerStateError } from '../ledger/repositories/ledger-state.error';
import { MetricsService } from '../observability/metrics/metrics.service';
import { JobRegistry } from './job.registry';
import { JobRunner } from './job-runner.service';
import { JOB_NAMES, type JobContext, type JobCounts } from './job.types';
import type { PauseStore } from './pause-store.port';
import type { FinishedRunStatus, RunStore, RunStoreClaim } from './run-store.port';

class MemoryPauseStore implements PauseStore {
  readonly paused = new Map<string, string>();
  async pauseOf(brokerageId: string, job: string) {
    for (const key of ['*', job]) {
      const reason = this.paused.get(`${brokerageId}:${key}`);
      if (reason !== undefined) return { job: key, reason, pausedAt: new Date('2026-01-01T00:00:00Z') };
    }
    return null;
  }
}

class MemoryRunStore implements RunStore {
  nextId = 1;
  readonly finished = new Map<number, { status: FinishedRunStatus; counts: JobCounts; error?: string }>();
  readonly started: { id: number; brokerageId: string; job: string }[] = [];
  // Runs another process holds: brokerage:job -> its owner.
  readonly heldElsewhere = new Map<string, string>();
  // Runs another worker marked interrupted (a takeover): finishing them is refused, as the ledger does.
  readonly interruptedElsewhere = new Set<number>();
  async claim(brokerageId: string, job: string): Promise<RunStoreClaim> {
    const owner = this.heldElsewhere.get(`${brokerageId}:${job}`);
    if (owner) return { heldBy: { runId: 99, owner, startedAt: new Date('2026-01-01T00:00:00Z') } };
    const id = this.nextId++;
    this.started.push({ id, brokerageId, job });
    return { run: { id, startedAt: new Date() }, recovered: { runs: 0, outbox: 0, inbox: 0 } };
  }
  async finish(runId: number, outcome: { counts: JobCounts; status: FinishedRunStatus; error?: string }) {
    if (this.interruptedElsewhere.has(runId))
      throw new LedgerStateError('run', runId, 'interrupted', outcome.status, ['running']);
    this.finished.set(runId, outcome);
  }
}

function brokerage(id: string): LoadedBrokerage {
  return { id, file: `${id}.yaml`, fingerprint: id, config: { id } as never, secrets: {} as never };
}

function setup() {
  const registry = new JobRegistry();
  const store = new MemoryRunStore();
  const pauses = new MemoryPauseStore();
  const config = {
    get: (id: string) => (['acme', 'beta'].includes(id) ? brokerage(id) : undefined),
    whyNotLoaded: (id: string) => `no brokerage "${id}" is configured in cfg (known: acme, beta)`,
  };
  const runner = new JobRunner(
    registry,
    config as unknown as ConfigService,
    store,
    pauses,
    new MetricsService(),
    new ManualClock(),
    { shutdownTimeoutMs: 1000 },
  );
  return { registry, store, runner, pauses };
}

function deferred() {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

const counts = { read: 3, created: 1, updated: 1, unchanged: 1, failed: 0 };

describe('JobRunner', () => {
  it('an idle run (nothing created or updated) logs nothing at info; a run that changed something does', async () => {
    const { Logger } = jest.requireMock<{ Logger: { prototype: { log(): void; debug(): void } } }>(
      '@nestjs/common',
    );
    const info = jest.spyOn(Logger.prototype, 'log');
    const debug = jest.spyOn(Logger.prototype, 'debug');
    try {
      const { registry, runner } = setup();
      registry.register('crm-changes', async () => ({
        counts: { read: 4, created: 0, updated: 0, unchanged: 4, failed: 0 },
      }));
      expect((await runner.run('acme', 'crm-changes')).status).toBe('succeeded');
      expect(info).not.toHaveBeenCalled();
      expect(debug).toHaveBeenCalled();

      registry.register('marketplace', async () => ({ counts }));
      await runner.run('acme', 'marketplace');
      expect(info).toHaveBeenCalledTimes(1);
    } finally {
      info.mockRestore();
      debug.mockRestore();
    }
  });

  it('records a successful run with its counts', async () => {
    const { registry, store, runner } = setup();
    registry.register('marketplace', async () => ({ counts }));
    const outcome = await runner.run('acme', 'marketplace');
    expect(outcome).toMatchObject({ status: 'succeeded', runId: 1, counts });
    expect(store.finished.get(1)).toEqual({ status: 'succeeded', counts, error: undefined });
  });

  it("runs the catch-up passes' calls in the background and every other job's in the foreground", async () => {
    const { registry, runner } = setup();
    const seen: Record<string, string> = {};
    for (const job of JOB_NAMES)
      registry.register(job, async () => {
        // After an await, as a handler's remote calls are made.
        await Promise.resolve();
        seen[job] = currentCallPriority();
        return { counts };
      });
    for (const job of JOB_NAMES) await runner.run('acme', job);
    expect(seen).toEqual({
      'crm-changes': 'foreground',
      'offers-reconcile': 'background',
      marketplace: 'background',
      'outbox-drain': 'foreground',
      'inbox-drain': 'foreground',
    });
    expect(currentCallPriority()).toBe('foreground');
  });

  it('passes on what a run left for the next one, for the operator who ran it', async () => {
    const { registry, runner } = setup();
    const left = 'the run ended on its time budget with 3 outbox commands still waiting (3 pending)';
    registry.register('outbox-drain', async () => ({ counts, left }));
    expect(await runner.run('acme', 'outbox-drain')).toMatchObject({ status: 'succeeded', left });
    registry.register('inbox-drain', async () => ({ counts }));
    expect(await runner.run('acme', 'inbox-drain')).not.toHaveProperty('left');
  });

  it('skips a second run of the same brokerage and job while the first is running', async () => {
    const { registry, store, runner } = setup();
    const gate = deferred();
    let calls = 0;
    registry.register('crm-changes', async () => {
      calls += 1;
      await gate.promise;
      return { counts };
    });
    const first = runner.run('acme', 'crm-changes');
    const second = await runner.run('acme', 'crm-changes');
    const other = runner.run('beta', 'crm-changes');
    expect(second.status).toBe('skipped');
    expect(second.reason).toMatch(/still in progress/);
    gate.release();
    expect((await first).status).toBe('succeeded');
    expect((await other).status).toBe('succeeded');
    expect(calls).toBe(2);
    expect(store.started.map((s) => s.brokerageId)).toEqual(['acme', 'beta']);
  });

  it('skips a run of a job another live process holds (the CLI beside the daemon), naming it', async () => {
    const { registry, store, runner } = setup();
    let calls = 0;
    registry.register('outbox-drain', async () => {
      calls += 1;
      return { counts };
    });
    store.heldElsewhere.set('acme:outbox-drain', 'host-1/4242');
    const outcome = await runner.run('acme', 'outbox-drain');
    expect(outcome).toMatchObject({ status: 'skipped', runId: null });
    expect(outcome.reason).toBe(
      'a run of the same brokerage and job is in progress in another process (host-1/4242, run 99, since 2026-01-01T00:00:00.000Z)',
    );
    expect(calls).toBe(0);
    expect(runner.isRunning('acme', 'outbox-drain')).toBe(false);
    expect((await runner.run('beta', 'outbox-drain')).status).toBe('succeeded');
  });

  it('skips a paused job or brokerage with the reason, unless told to ignore the pause', async () => {
    const { registry, store, runner, pauses } = setup();
    registry.register('marketplace', async () => ({ counts }));
    pauses.paused.set('acme:marketplace', 'listing feed migration');
    const paused = await runner.run('acme', 'marketplace');
    expect(paused).toMatchObject({ status: 'skipped', runId: null, paused: true });
    expect(paused.reason).toMatch(
      /this job is paused since 2026-01-01T00:00:00.000Z \(listing feed migration\)/,
    );
    expect((await runner.run('beta', 'marketplace')).status).toBe('succeeded');
    pauses.paused.set('beta:*', '');
    expect((await runner.run('beta', 'marketplace')).reason).toMatch(/the brokerage is paused/);
    expect((await runner.run('acme', 'marketplace', { ignorePause: true })).status).toBe('succeeded');
    expect(store.started.map((s) => s.brokerageId)).toEqual(['beta', 'acme']);
    expect(runner.isRunning('acme', 'marketplace')).toBe(false);
  });

  it('reports running jobs with the progress their handler last gave', async () => {
    const { registry, runner } = setup();
    const gate = deferred();
    registry.register('marketplace', async (ctx) => {
      ctx.progress(40, 100);
      await gate.promise;
      return { counts };
    });
    const running = runner.run('acme', 'marketplace');
    await waitFor(() => runner.running()[0]?.done === 40, { what: 'the handler to report 40 done' });
    expect(runner.running()).toEqual([
      expect.objectContaining({ brokerageId: 'acme', job: 'marketplace', runId: 1, done: 40, total: 100 }),
    ]);
    gate.release();
    await running;
    expect(runner.running()).toEqual([]);
  });

  it('records a thrown error as a failed run with its message', async () => {
    const { registry, store, runner } = setup();
    registry.register('outbox-drain', async () => {
      throw new Error('service unavailable');
    });
    const outcome = await runner.run('acme', 'outbox-drain');
    expect(outcome).toMatchObject({ status: 'failed', error: 'service unavailable' });
    expect(store.finished.get(1)?.status).toBe('failed');
  });

  it('does not record a dry run and tells the handler', async () => {
    const { registry, store, runner } = setup();
    let seen: JobContext | undefined;
    registry.register('marketplace', async (ctx) => {
      seen = ctx;
      ctx.progress(1, 2);
      return { counts };
    });
    const progress: [number, number | undefined][] = [];
    const outcome = await runner.run('acme', 'marketplace', {
      dryRun: true,
      onProgress: (d, t) => progress.push([d, t]),
    });
    expect(outcome).toMatchObject({ status: 'succeeded', runId: null });
    expect(seen?.dryRun).toBe(true);
    expect(progress).toEqual([[1, 2]]);
    expect(store.started).toHaveLength(0);
  });

  it('skips jobs without a handler and refuses unknown brokerages', async () => {
    const { runner } = setup();
    expect((await runner.run('acme', 'inbox-drain')).reason).toMatch(/no handler/);
    await expect(runner.run('nope', 'inbox-drain')).rejects.toThrow(
      'no brokerage "nope" is configured in cfg',
    );
  });

  it('aborts running jobs on shutdown, marks them interrupted and refuses new runs', async () => {
    const { registry, store, runner } = setup();
    registry.register('marketplace', async (ctx) => {
      // Checkpoints at the next page boundary once aborted.
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
      return { counts: { ...counts, read: 1 } };
    });
    const running = runner.run('acme', 'marketplace');
    await new Promise((resolve) => setImmediate(resolve));
    await runner.shutdown(5_000);
    expect((await running).status).toBe('interrupted');
    expect(store.finished.get(1)?.status).toBe('interrupted');
    expect((await runner.run('acme', 'marketplace')).status).toBe('skipped');
  });

  it('marks a run interrupted when it does not stop before the shutdown deadline', async () => {
    const { registry, store, runner } = setup();
    const gate = deferred();
    registry.register('marketplace', async () => {
      await gate.promise;
      return { counts };
    });
    const running = runner.run('acme', 'marketplace');
    await new Promise((resolve) => setImmediate(resolve));
    await runner.shutdown(10);
    expect(store.finished.get(1)?.status).toBe('interrupted');
    gate.release();
    await running;
  });

  it('stops a run another worker took over, and warns instead of calling its end unrecorded', async () => {
    const { Logger } = jest.requireMock<{
      Logger: { prototype: { warn(line: string): void; error(line: string): void } };
    }>('@nestjs/common');
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const error = jest.spyOn(Logger.prototype, 'error');
    try {
      const { registry, store, runner } = setup();
      registry.register('outbox-drain', async (ctx) => {
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
        return { counts: { ...counts, read: 1 } };
      });
      registry.register('crm-changes', async () => ({ counts }));
      const taken = runner.run('acme', 'outbox-drain');
      await waitFor(() => runner.running()[0]?.runId === 1, { what: 'the run to be claimed' });
      // Another worker marked run 1 interrupted; run 7 is not this worker's.
      store.interruptedElsewhere.add(1);
      runner.abortTakenOver([1, 7]);
      const outcome = await taken;
      expect(outcome).toMatchObject({ status: 'interrupted', runId: 1 });
      expect(store.finished.has(1)).toBe(false);
      expect(warn.mock.calls.map(([line]) => String(line))).toEqual([
        'run 1 of outbox-drain for acme was taken over by another worker; stopping it',
        'run 1 was marked interrupted meanwhile (taken over by another worker); its own end is not recorded',
      ]);
      expect(error).not.toHaveBeenCalled();
      // Other runs go on as before.
      expect((await runner.run('acme', 'crm-changes')).status).toBe('succeeded');
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });
});
