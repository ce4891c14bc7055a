import { Logger } from '@nestjs/common';
import { MetricsService } from '../../observability/metrics/metrics.service';
import { DeadWorkerTakeover } from './dead-worker.takeover';
import type { PgBossDispatcher } from './pg-boss.dispatcher';
import type { SyncJobData } from './pg-boss.queues';
import type { AbandonedJob, PgBossTables } from './pg-boss.tables';

describe('DeadWorkerTakeover', () => {
  const abandoned: AbandonedJob[] = [
    { id: 'j1', queue: 'sync__outbox-drain__b1', brokerageId: 'b1', job: 'outbox-drain', owner: 'w1/1#aa' },
    { id: 'j2', queue: 'sync__crm-changes__b2', brokerageId: 'b2', job: 'crm-changes', owner: null },
  ];
  let warn: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warn.mockRestore());

  it("cancels each dead holder's job it wins and queues the pair again as known work, once", async () => {
    const asked: { queues: string[]; seconds: number }[] = [];
    // Another worker cancelled j2 first: only j1 is this worker's to take over.
    const tables = {
      abandonedJobs: async (queues: string[], seconds: number) => {
        asked.push({ queues, seconds });
        return abandoned;
      },
      cancelActive: async (_queue: string, id: string) => id === 'j1',
    } as unknown as PgBossTables;
    const sent: { queue: string; data: SyncJobData }[] = [];
    const dispatcher = {
      worked: () => ['sync__crm-changes__b2', 'sync__outbox-drain__b1'],
      sendKnownWork: async (queue: string, data: SyncJobData) => {
        sent.push({ queue, data });
        return true;
      },
    } as unknown as PgBossDispatcher;
    const metrics = new MetricsService();

    expect(await new DeadWorkerTakeover(tables, dispatcher, metrics, 30).reap()).toBe(1);
    expect(asked).toEqual([{ queues: ['sync__crm-changes__b2', 'sync__outbox-drain__b1'], seconds: 30 }]);
    expect(sent).toEqual([
      { queue: 'sync__outbox-drain__b1', data: { brokerageId: 'b1', job: 'outbox-drain' } },
    ]);
    expect(warn.mock.calls.map(([line]) => String(line))).toEqual([
      'taking over outbox-drain for b1 from w1/1#aa: no heartbeat for 30s; its job is cancelled and the pair queued again',
    ]);
    expect(await metrics.render()).toContain(
      'cash_offer_sync_worker_takeovers_total{brokerage="b1",job="outbox-drain"} 1',
    );
  });
});
