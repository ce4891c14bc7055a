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
import { ManualClock } from '../common/clock';
import type { ConfigService } from '../config/config.service';
import type { LoadedBrokerage } from '../config/config.loader';
import { MetricsService } from '../observability/metrics/metrics.service';
import { JobBackoff } from './job-backoff';
import { jobKey } from './job-key';
import { JobRegistry } from './job.registry';
import { JobRunner } from './job-runner.service';
import { emptyCounts } from './job.types';
import { LocalEarlyRunTrigger } from './local-early-run.trigger';

function brokerage(id: string): LoadedBrokerage {
  return { id, file: `${id}.yaml`, fingerprint: id, config: { id } as never, secrets: {} as never };
}

// A crm-changes handler whose runs end only when the test says so.
function setup() {
  const registry = new JobRegistry();
  const releases: (() => void)[] = [];
  let started = 0;
  let fail = false;
  registry.register('crm-changes', async () => {
    started++;
    await new Promise<void>((resolve) => releases.push(resolve));
    if (fail) throw new Error('CRM down');
    return { counts: emptyCounts() };
  });
  const runner = new JobRunner(
    registry,
    { get: (id: string) => brokerage(id), configDir: 'cfg' } as unknown as ConfigService,
    {
      claim: async () => ({
        run: { id: 1, startedAt: new Date() },
        recovered: { runs: 0, outbox: 0, inbox: 0 },
      }),
      finish: async () => undefined,
    },
    { pauseOf: async () => null },
    new MetricsService(),
    new ManualClock(),
    { shutdownTimeoutMs: 1000 },
  );
  const backoff = new JobBackoff();
  const trigger = new LocalEarlyRunTrigger(runner, backoff);
  const until = (check: () => boolean, what: string) => waitFor(check, { what });
  const release = async (): Promise<void> => {
    await until(() => releases.length > 0, 'a run to hold');
    releases.shift()!();
  };
  return {
    runner,
    trigger,
    backoff,
    until,
    release,
    started: () => started,
    failNext: () => (fail = true),
  };
}

describe('LocalEarlyRunTrigger', () => {
  it('runs at once when idle, and folds a burst during that run into one more run', async () => {
    const t = setup();
    expect(await t.trigger.request('acme', 'crm-changes')).toBe('queued');
    await t.until(() => t.started() === 1, 'the first run');
    const burst = await Promise.all(
      Array.from({ length: 50 }, () => t.trigger.request('acme', 'crm-changes')),
    );
    expect(burst[0]).toBe('queued');
    expect(burst.slice(1).every((o) => o === 'coalesced')).toBe(true);
    await t.release();
    await t.until(() => t.started() === 2, 'one more run');
    await t.release();
    await t.runner.whenIdle('acme', 'crm-changes');
    await t.trigger.onModuleDestroy();
    expect(t.started()).toBe(2);
  });

  it('waits for a run already in progress (cron) instead of being skipped by it', async () => {
    const t = setup();
    const cron = t.runner.run('acme', 'crm-changes');
    await t.until(() => t.started() === 1, 'the first run');
    expect(await t.trigger.request('acme', 'crm-changes')).toBe('queued');
    await t.release();
    await cron;
    await t.until(() => t.started() === 2, 'one more run');
    await t.release();
    await t.trigger.onModuleDestroy();
    expect(t.started()).toBe(2);
  });

  it('leaves a failing job to cron: a failed early run backs off and later requests are skipped', async () => {
    const t = setup();
    t.failNext();
    await t.trigger.request('acme', 'crm-changes');
    await t.release();
    await t.until(
      () => t.backoff.state(jobKey('acme', 'crm-changes')).consecutiveFailures === 1,
      'the failure to count',
    );
    expect(await t.trigger.request('acme', 'crm-changes')).toBe('skipped');
    await t.trigger.onModuleDestroy();
    expect(t.started()).toBe(1);
  });
});
