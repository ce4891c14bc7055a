import { Logger } from '@nestjs/common';
import type { WorkerDeath } from '../../ledger';
import { MetricsService } from '../../observability/metrics/metrics.service';
import { DeadWorkerTakeover } from './dead-worker.takeover';
import type { PgBossDispatcher } from './pg-boss.dispatcher';
import type { SyncJobData } from './pg-boss.queues';
import type { AbandonedJob, PgBossTables } from './pg-boss.tables';

describe('DeadWorkerTakeover', () => {
  const abandoned: AbandonedJob[] = [
    {
      id: 'j1',
      queue: 'sync__outbox-drain__b1',
      brokerageId: 'b1',
      job: 'outbox-drain',
      owner: 'w1/1#aa',
      sessionGone: false,
    },
    { id: 'j2', queue: 'sync__crm-changes__b2', brokerageId: 'b2', job: 'crm-changes', owner: null, sessionGone: false },
    {
      id: 'j3',
      queue: 'sync__inbox-drain__b3',
      brokerageId: 'b3',
      job: 'inbox-drain',
      owner: 'w3/3#cc',
      sessionGone: true,
    },
  ];
  const death: WorkerDeath = { silentSeconds: 30, sessionGoneSeconds: 10 };
  let warn: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warn.mockRestore());

  it("cancels each dead holder's job it wins and queues the pair again as known work, once", async () => {
    const asked: { queues: string[]; death: WorkerDeath }[] = [];
    // Another worker cancelled j2 first: only j1 and j3 are this worker's to take over.
    const tables = {
      abandonedJobs: async (queues: string[], asOf: WorkerDeath) => {
        asked.push({ queues, death: asOf });
        return abandoned;
      },
      cancelActive: async (_queue: string, id: string) => id !== 'j2',
    } as unknown as PgBossTables;
    const sent: { queue: string; data: SyncJobData }[] = [];
    const dispatcher = {
      worked: () => ['sync__crm-changes__b2', 'sync__inbox-drain__b3', 'sync__outbox-drain__b1'],
      sendKnownWork: async (queue: string, data: SyncJobData) => {
        sent.push({ queue, data });
        return true;
      },
    } as unknown as PgBossDispatcher;
    const metrics = new MetricsService();

    expect(await new DeadWorkerTakeover(tables, dispatcher, metrics, death).reap()).toBe(2);
    expect(asked).toEqual([
      { queues: ['sync__crm-changes__b2', 'sync__inbox-drain__b3', 'sync__outbox-drain__b1'], death },
    ]);
    expect(sent).toEqual([
      { queue: 'sync__outbox-drain__b1', data: { brokerageId: 'b1', job: 'outbox-drain' } },
      { queue: 'sync__inbox-drain__b3', data: { brokerageId: 'b3', job: 'inbox-drain' } },
    ]);
    // Each says why its holder counts as dead: silence alone, or its session gone as well.
    expect(warn.mock.calls.map(([line]) => String(line))).toEqual([
      'taking over outbox-drain for b1 from w1/1#aa: no heartbeat for 30s; its job is cancelled and the pair queued again',
      'taking over inbox-drain for b3 from w3/3#cc: its database session is gone and no heartbeat for 10s; its job is cancelled and the pair queued again',
    ]);
    expect(await metrics.render()).toContain(
      'cash_offer_sync_worker_takeovers_total{brokerage="b1",job="outbox-drain"} 1',
    );
  });
});
