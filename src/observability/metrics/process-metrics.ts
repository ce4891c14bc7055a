import { collectDefaultMetrics, register as processRegistry, Registry } from 'prom-client';

const METRIC_PREFIX = 'cash_offer_sync_';

// Node's and the process's own figures (CPU, memory, heap, event loop lag, GC): one set per process,
// started by the process's entry point (startDaemon), not by each application it builds. Two of
// prom-client's collectors hold what nothing can stop (an event loop delay histogram ticking every
// 10 ms and a GC PerformanceObserver, prometheus/client_js #494 and #500), and each keeps the
// application that started it alive: started by MetricsService, every test app built in a process
// stayed in memory with its ledger and simulators (a jest worker passed 1 GB of heap).
let started = false;
export function collectProcessMetrics(): void {
  if (started) return;
  started = true;
  collectDefaultMetrics({ register: processRegistry, prefix: METRIC_PREFIX });
}

// A scrape's text: the application's own instruments, then the process's when they were started.
export function withProcessMetrics(appRegistry: Registry): Registry {
  return started ? Registry.merge([appRegistry, processRegistry]) : appRegistry;
}
