import { monitorEventLoopDelay } from 'node:perf_hooks';
import { MetricsService } from './metrics.service';
import { collectProcessMetrics } from './process-metrics';

jest.mock('node:perf_hooks', () => {
  const actual = jest.requireActual<typeof import('node:perf_hooks')>('node:perf_hooks');
  return { ...actual, monitorEventLoopDelay: jest.fn(actual.monitorEventLoopDelay) };
});

// The order matters: the process's collectors are started once per process (here, per test file).
describe('process metrics', () => {
  it('are not started by an application: building MetricsService holds no event loop histogram', async () => {
    const text = await new MetricsService().render();
    expect(text).toContain('# TYPE cash_offer_sync_records_total counter');
    expect(text).not.toContain('cash_offer_sync_process_cpu_user_seconds_total');
    expect(monitorEventLoopDelay).not.toHaveBeenCalled();
  });

  it("once started by the entry point, are in every application's scrape, and start only once", async () => {
    collectProcessMetrics();
    collectProcessMetrics();
    expect(monitorEventLoopDelay).toHaveBeenCalledTimes(1);
    for (const metrics of [new MetricsService(), new MetricsService()]) {
      metrics.recordsSynced('acme', 'marketplace', 'created');
      const text = await metrics.render();
      expect(text).toContain(
        'cash_offer_sync_records_total{brokerage="acme",flow="marketplace",outcome="created"} 1',
      );
      expect(text).toContain('# TYPE cash_offer_sync_process_cpu_user_seconds_total counter');
      expect(text).toContain('# TYPE cash_offer_sync_nodejs_eventloop_lag_seconds gauge');
    }
  });
});
