import 'reflect-metadata';
import { Injectable, Logger, Module } from '@nestjs/common';
import { DiscoveryModule, NestFactory } from '@nestjs/core';
import { JobRegistry } from '../scheduler/job.registry';
import { SyncJob } from '../scheduler/sync-job.decorator';
import { emptyCounts, type JobContext, type JobResult } from '../scheduler/job.types';
import { CrmChangeConsumer } from '../sync/crm-changes/crm-change-consumer.decorator';
import { CrmChangeConsumers } from '../sync/crm-changes/crm-change.consumers';
import { OutboxExecutor } from '../sync/outbox/outbox-executor.decorator';
import { OutboxExecutors, type OutboxReconciliation } from '../sync/outbox/outbox.executors';
import { InboxEventHandlers } from '../inbox/inbox-event.handlers';
import { InboxHandler } from '../inbox/inbox-handler.decorator';

// The four registries read the decorators through Nest's DiscoveryService: what a module declares
// is what the daemon runs, and a duplicate stops the start.
@Injectable()
@SyncJob('marketplace')
class MarketplaceStandIn {
  run(): Promise<JobResult> {
    return Promise.resolve({ counts: { ...emptyCounts(), read: 7 } });
  }
}

@Injectable()
@CrmChangeConsumer('first')
class FirstConsumer {
  stream() {
    return { stream: 'crm:deal:first', kind: 'deal', properties: [] };
  }
  consumePage() {
    return Promise.resolve();
  }
}

@Injectable()
@CrmChangeConsumer('second')
class SecondConsumer {
  stream() {
    return { stream: 'crm:deal:second', kind: 'deal', properties: [] };
  }
  consumePage() {
    return Promise.resolve();
  }
}

@Injectable()
@OutboxExecutor('do_it')
class DoItExecutor {
  send() {
    return Promise.resolve('sent');
  }
  reconcile(): Promise<OutboxReconciliation> {
    return Promise.resolve({ found: false, provablyAbsent: true, hint: '' });
  }
}

@Injectable()
class EventsStandIn {
  readonly seen: string[] = [];

  @InboxHandler('new_offer')
  onNewOffer(payload: { offer_id?: number }, ctx: { brokerageId: string }): Promise<void> {
    this.seen.push(`${ctx.brokerageId}:${String(payload.offer_id)}`);
    return Promise.resolve();
  }
}

const REGISTRIES = [JobRegistry, CrmChangeConsumers, OutboxExecutors, InboxEventHandlers];

async function contextOf(providers: (new (...args: never[]) => unknown)[]) {
  @Module({ imports: [DiscoveryModule], providers: [...REGISTRIES, ...providers] })
  class TestModule {}
  return NestFactory.createApplicationContext(TestModule, { logger: false });
}

describe('handlers found by the framework', () => {
  beforeAll(() => {
    Logger.overrideLogger(false);
  });

  it('finds each decorated job, consumer, executor and inbox handler', async () => {
    const app = await contextOf([
      MarketplaceStandIn,
      FirstConsumer,
      SecondConsumer,
      DoItExecutor,
      EventsStandIn,
    ]);
    try {
      const job = app.get(JobRegistry).get('marketplace');
      expect(job).toBeDefined();
      expect((await job!({} as JobContext)).counts.read).toBe(7);
      expect(app.get(JobRegistry).registeredJobs()).toEqual(['marketplace']);

      expect(
        app
          .get(CrmChangeConsumers)
          .all()
          .map((c) => c.name),
      ).toEqual(['first', 'second']);

      const executors = app.get(OutboxExecutors);
      expect(executors.operations()).toEqual(['do_it']);
      expect(executors.get('do_it')).toBe(app.get(DoItExecutor));

      const handler = app.get(InboxEventHandlers).get('new_offer');
      await handler!(
        { offer_id: 5 },
        { brokerageId: 'acme', eventId: 1, signal: new AbortController().signal },
      );
      expect(app.get(EventsStandIn).seen).toEqual(['acme:5']);
      expect(app.get(InboxEventHandlers).get('UPDATE')).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it('names every scheduled job that has no handler', async () => {
    const app = await contextOf([MarketplaceStandIn]);
    try {
      expect(() =>
        app.get(JobRegistry).assertHandled(['marketplace', 'outbox-drain', 'inbox-drain'], 'cannot schedule'),
      ).toThrow('cannot schedule: no handler for job(s) outbox-drain, inbox-drain');
      expect(() => app.get(JobRegistry).assertHandled(['marketplace'], 'cannot schedule')).not.toThrow();
    } finally {
      await app.close();
    }
  });

  it('refuses two executors of one operation, naming the second', async () => {
    @Injectable()
    @OutboxExecutor('do_it')
    class AnotherDoIt extends DoItExecutor {}
    await expect(contextOf([DoItExecutor, AnotherDoIt])).rejects.toThrow(
      'an outbox executor for "do_it" is already registered (again by AnotherDoIt)',
    );
  });
});
