import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { withProcessMetrics } from './process-metrics';

const RECORD_OUTCOMES = ['created', 'updated', 'unchanged', 'failed'] as const;
type RecordOutcome = (typeof RECORD_OUTCOMES)[number];
// A run's counts (the scheduler's JobCounts has this shape); `read` is not an outcome.
export type RunCounts = Readonly<Record<RecordOutcome | 'read', number>>;

export type WebhookEventResult =
  | 'received'
  | 'duplicate'
  | 'failed'
  | 'dead'
  | 'rejected'
  | 'flagged'
  | 'too_large'
  | 'unsupported_media_type';
// A CRM's change notification: an early run asked for, folded into one already asked for, skipped
// (the job is backing off or the daemon is stopping), a redelivery, an event the daemon does not
// use, a bad signature, a body that is not the CRM's shape.
export type CrmWebhookResult =
  | 'triggered'
  | 'coalesced'
  | 'skipped'
  | 'duplicate'
  | 'ignored'
  | 'rejected'
  // HubSpot's signed notifications: a signature that does not verify (or none), a true one on a
  // timestamp over 5 minutes old, a batch whose every event id was already taken.
  | 'forged'
  | 'stale'
  | 'replayed'
  | 'invalid'
  | 'unsupported_media_type';
export type RunStatusLabel = 'succeeded' | 'failed' | 'interrupted';

// Reads current depths from the ledger when Prometheus scrapes; set by DepthCollector.
export type DepthReader = () => Promise<{ outbox: DepthRow[]; inbox: DepthRow[] }>;
export interface DepthRow {
  brokerageId: string;
  state: string;
  count: number;
}

// Each configured brokerage and whether it loaded; set by LedgerDepthCollector.
export type ReadinessReader = () => Iterable<[string, boolean]>;
// Open alerts by kind and brokerage ('' for the daemon's own).
export type OpenAlertsReader = () => Promise<{ kind: string; brokerageId: string }[]>;

// The daemon's instruments, on a registry of its own (no global state shared with tests).
// No constructor dependencies, so Nest builds it without @Injectable (and unit tests need no Nest).
export class MetricsService {
  readonly registry = new Registry();
  private depthReader: DepthReader | undefined;
  private readinessReader: ReadinessReader | undefined;
  private openAlertsReader: OpenAlertsReader | undefined;

  // Alerts firing now (src/alerts), so a Prometheus rule can page on them too.
  readonly alertsOpen = new Gauge({
    name: 'cash_offer_sync_alerts_open',
    help: 'Alerts firing now, by kind and brokerage (docs/operations.md, "Alerts")',
    labelNames: ['kind', 'brokerage'],
    registers: [this.registry],
    collect: async () => {
      const read = this.openAlertsReader;
      if (!read) return;
      const open = await read().catch(() => undefined);
      if (!open) return;
      this.alertsOpen.reset();
      for (const { kind, brokerageId } of open) this.alertsOpen.inc({ kind, brokerage: brokerageId });
    },
  });

  // 1 for each brokerage that loaded, 0 for each whose file failed to load (after a reload too): an
  // alert rule on `== 0` finds a brokerage nobody is syncing.
  readonly brokerageReady = new Gauge({
    name: 'cash_offer_sync_brokerage_ready',
    help: 'Whether each configured brokerage loaded (1) or its file failed to load (0)',
    labelNames: ['brokerage'],
    registers: [this.registry],
    collect: () => {
      const readiness = this.readinessReader?.();
      if (!readiness) return;
      this.brokerageReady.reset();
      for (const [brokerage, ready] of readiness) this.brokerageReady.set({ brokerage }, ready ? 1 : 0);
    },
  });

  private readonly records = new Counter({
    name: 'cash_offer_sync_records_total',
    help: 'Records handled by a sync flow, by outcome (created, updated, unchanged, failed ...)',
    labelNames: ['brokerage', 'flow', 'outcome'],
    registers: [this.registry],
  });
  private readonly apiCalls = new Counter({
    name: 'cash_offer_sync_api_calls_total',
    help: 'Calls to remote APIs, by target (cash-offer, hubspot ...) and HTTP status or error code',
    labelNames: ['brokerage', 'target', 'status'],
    registers: [this.registry],
  });
  private readonly webhookEvents = new Counter({
    name: 'cash_offer_sync_webhook_events_total',
    help: 'Webhook deliveries and their processing results',
    labelNames: ['brokerage', 'result'],
    registers: [this.registry],
  });
  private readonly crmWebhookEvents = new Counter({
    name: 'cash_offer_sync_crm_webhook_events_total',
    help: 'CRM change notifications (Follow Up Boss, HubSpot webhooks) and what each caused, refusals (rejected, forged, stale, replayed, invalid) included',
    labelNames: ['brokerage', 'crm', 'result'],
    registers: [this.registry],
  });
  private readonly rateLimitMisses = new Counter({
    name: 'cash_offer_sync_rate_limit_misses_total',
    help: '429 answers the rate limiters should have prevented (the remote refused a call the budget let out), by remote (hubspot, followupboss)',
    labelNames: ['remote'],
    registers: [this.registry],
  });
  private readonly offersExpiredUndecided = new Counter({
    name: 'cash_offer_sync_offers_expired_undecided_total',
    help: 'Offers that reached their expiry with nobody deciding them (their records moved to Expired)',
    labelNames: ['brokerage'],
    registers: [this.registry],
  });
  // On a shared ledger: a (brokerage, job) taken from a worker that stopped beating (a SIGKILL, an
  // OOM, a lost host), by the worker that noticed (PgBossScheduler).
  private readonly workerTakeovers = new Counter({
    name: 'cash_offer_sync_worker_takeovers_total',
    help: 'Jobs taken over from a dead worker (no heartbeat for 6 x WORKER_HEARTBEAT_SECONDS), by brokerage and job',
    labelNames: ['brokerage', 'job'],
    registers: [this.registry],
  });
  private readonly offerDecisionSeconds = new Histogram({
    name: 'cash_offer_sync_offer_decision_seconds',
    help: "Time from a buyer's offer to its decision (accepted or rejected), as the service dates both",
    labelNames: ['brokerage'],
    buckets: [600, 3600, 4 * 3600, 12 * 3600, 24 * 3600, 2 * 86400, 3 * 86400, 7 * 86400, 14 * 86400],
    registers: [this.registry],
  });
  private readonly runDuration = new Histogram({
    name: 'run_duration_seconds',
    help: 'Duration of job runs',
    labelNames: ['brokerage', 'job', 'status'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
    registers: [this.registry],
  });
  readonly outboxDepth = new Gauge({
    name: 'outbox_depth',
    help: 'Outbox commands by brokerage and state',
    labelNames: ['brokerage', 'state'],
    registers: [this.registry],
    collect: async () => {
      const depths = await this.readDepths();
      if (!depths) return;
      this.outboxDepth.reset();
      for (const row of depths.outbox)
        this.outboxDepth.set({ brokerage: row.brokerageId, state: row.state }, row.count);
    },
  });
  readonly inboxDepth = new Gauge({
    name: 'inbox_depth',
    help: 'Inbox events by brokerage and status',
    labelNames: ['brokerage', 'status'],
    registers: [this.registry],
    collect: async () => {
      const depths = await this.readDepths();
      if (!depths) return;
      this.inboxDepth.reset();
      for (const row of depths.inbox)
        this.inboxDepth.set({ brokerage: row.brokerageId, status: row.state }, row.count);
    },
  });
  private pendingDepths: Promise<{ outbox: DepthRow[]; inbox: DepthRow[] } | undefined> | undefined;

  recordsSynced(brokerageId: string, flow: string, outcome: string, count = 1): void {
    this.records.inc({ brokerage: brokerageId, flow, outcome }, count);
  }

  // A run's outcome counts for one flow (`read` is not an outcome: every record read is one of them).
  recordsSyncedInRun(brokerageId: string, flow: string, counts: RunCounts): void {
    for (const outcome of RECORD_OUTCOMES)
      if (counts[outcome] > 0) this.recordsSynced(brokerageId, flow, outcome, counts[outcome]);
  }

  apiCall(brokerageId: string, target: string, status: number | string): void {
    this.apiCalls.inc({ brokerage: brokerageId, target, status: String(status) });
  }

  webhookEvent(brokerageId: string, result: WebhookEventResult): void {
    this.webhookEvents.inc({ brokerage: brokerageId, result });
  }

  crmWebhookEvent(brokerageId: string, crm: string, result: CrmWebhookResult): void {
    this.crmWebhookEvents.inc({ brokerage: brokerageId, crm, result });
  }

  rateLimitMiss(remote: string): void {
    this.rateLimitMisses.inc({ remote });
  }

  offerExpiredUndecided(brokerageId: string): void {
    this.offersExpiredUndecided.inc({ brokerage: brokerageId });
  }

  offerDecided(brokerageId: string, seconds: number): void {
    this.offerDecisionSeconds.observe({ brokerage: brokerageId }, seconds);
  }

  workerTakeover(brokerageId: string, job: string): void {
    this.workerTakeovers.inc({ brokerage: brokerageId, job });
  }

  runFinished(brokerageId: string, job: string, status: RunStatusLabel, seconds: number): void {
    this.runDuration.observe({ brokerage: brokerageId, job, status }, seconds);
  }

  setReadinessReader(reader: ReadinessReader | undefined): void {
    this.readinessReader = reader;
  }

  setOpenAlertsReader(reader: OpenAlertsReader | undefined): void {
    this.openAlertsReader = reader;
  }

  setDepthReader(reader: DepthReader | undefined): void {
    this.depthReader = reader;
  }

  contentType(): string {
    return this.registry.contentType;
  }

  async render(): Promise<string> {
    return withProcessMetrics(this.registry).metrics();
  }

  // One ledger read serves both gauges of a scrape (prom-client collects them concurrently).
  private readDepths(): Promise<{ outbox: DepthRow[]; inbox: DepthRow[] } | undefined> {
    const reader = this.depthReader;
    if (!reader) return Promise.resolve(undefined);
    this.pendingDepths ??= reader()
      // A ledger that cannot be read leaves the last values; /health/ready reports the ledger itself.
      .catch(() => undefined)
      .finally(() => {
        this.pendingDepths = undefined;
      });
    return this.pendingDepths;
  }
}
