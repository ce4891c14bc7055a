import { Injectable, Logger } from '@nestjs/common';
import { JsonObject } from '../cash-offer/schema';
import { Clock } from '../common/clock';
import { InboxRepository } from '../ledger';
import { MetricsService } from '../observability/metrics/metrics.service';
import { backoffDelayMs } from '../common/backoff';
import { DRAIN_RUN_BUDGET_MS, drainRunBudget } from '../scheduler/drain-run.budget';
import { waitsOnRemote, type RemoteError } from '../common/remote-error';
import { EventRefusedError } from './event-refused.error';
import { EventWaitsError } from './event-waits.error';
import { InboxEventHandlers } from './inbox-event.handlers';

export interface InboxDrainOptions {
  batchSize?: number;
  // After this many failed attempts an event is dead-lettered with its last error; one whose failure
  // is the remote's (waitsOnRemote) only once it has also waited this long since it was received.
  maxAttempts?: number;
  maxRemoteWaitMs?: number;
  retryBaseMs?: number;
  retryCapMs?: number;
  // The longest wait between tries while the failure is the remote's: an outage's end is caught
  // within it, whatever its length.
  remoteRetryCapMs?: number;
  // How long a run goes on claiming batches (drain-run.budget.ts); a claimed batch is finished.
  runBudgetMs?: number;
}

// What became of one event of a run.
type InboxOutcome = 'processed' | 'failed' | 'deadLettered' | 'flagged';

export interface InboxDrainResult {
  processed: number;
  failed: number;
  deadLettered: number;
  flagged: number;
  // The run ended on its time budget (drain-run.budget.ts), perhaps with events still due.
  endedOnBudget?: true;
}

const DEFAULTS: Required<InboxDrainOptions> = {
  batchSize: 50,
  maxAttempts: 8,
  // A day: longer than any outage a brokerage would sit through unaware (the work_stale alert fires
  // after 30 minutes), short enough that a record the CRM fails on for good does not hold its
  // request's later events for ever.
  maxRemoteWaitMs: 24 * 60 * 60_000,
  retryBaseMs: 2_000,
  retryCapMs: 10 * 60_000,
  remoteRetryCapMs: 60_000,
  runBudgetMs: DRAIN_RUN_BUDGET_MS,
};

// Drains a brokerage's inbox: claims due events (one at a time per offer request, in order of
// receipt), applies each through its registered handler, and retries or dead-letters failures.
@Injectable()
export class InboxProcessor {
  private readonly logger = new Logger(InboxProcessor.name);

  constructor(
    private readonly inbox: InboxRepository,
    private readonly handlers: InboxEventHandlers,
    private readonly metrics: MetricsService,
    private readonly clock: Clock,
  ) {}

  async drain(
    brokerageId: string,
    signal: AbortSignal,
    options: InboxDrainOptions = {},
  ): Promise<InboxDrainResult> {
    const opts = { ...DEFAULTS, ...options };
    const result: InboxDrainResult = { processed: 0, failed: 0, deadLettered: 0, flagged: 0 };
    const budget = drainRunBudget(opts.runBudgetMs);
    // Checked between batches only: a claimed batch is always finished, so nothing is left half-applied.
    while (!signal.aborted) {
      const events = await this.inbox.claimDue(opts.batchSize, { brokerageId });
      if (events.length === 0) break;
      for (const event of events) {
        const outcome = await this.apply(event, brokerageId, signal, opts);
        result[outcome] += 1;
      }
      if (budget.spent()) {
        this.logger.log(
          `${brokerageId}: inbox drain ends on its time budget; what is still due goes to the next run`,
        );
        result.endedOnBudget = true;
        break;
      }
    }
    return result;
  }

  private async apply(
    event: { id: number; eventType: string; payload: string; attempts: number; receivedAt: Date },
    brokerageId: string,
    signal: AbortSignal,
    opts: Required<InboxDrainOptions>,
  ): Promise<InboxOutcome> {
    const handler = this.handlers.get(event.eventType);
    if (!handler) {
      await this.inbox.deadLetter(event.id, `no handler applies "${event.eventType}" events`);
      this.metrics.webhookEvent(brokerageId, 'dead');
      return 'deadLettered';
    }
    try {
      await handler(JSON.parse(event.payload) as JsonObject, {
        brokerageId,
        eventId: event.id,
        signal,
        receivedAt: event.receivedAt,
      });
      await this.inbox.markDone(event.id);
      this.logger.log(
        `${brokerageId}: applied ${event.eventType} event ${event.id}${recordOf(event.payload)}`,
      );
      return 'processed';
    } catch (error) {
      if (error instanceof EventRefusedError) {
        await this.inbox.flag(event.id, error.reason);
        this.metrics.webhookEvent(brokerageId, 'flagged');
        this.logger.warn(`flagged ${event.eventType} event ${event.id}: ${error.reason}`);
        return 'flagged';
      }
      const message = error instanceof Error ? error.message : String(error);
      // An outage of the service or the CRM (or a key refused until the operator fixes it) is not
      // the event's fault: it is retried, at most `remoteRetryCapMs` apart (or when the remote said),
      // until the remote answers, for up to `maxRemoteWaitMs`; so is an event that waits on the
      // daemon's own unfinished work (EventWaitsError). Failures of its own give up after
      // `maxAttempts`.
      const waitsOnWork = error instanceof EventWaitsError;
      const waiting =
        (waitsOnRemote(error) || waitsOnWork) &&
        this.clock.nowMs() - event.receivedAt.getTime() < opts.maxRemoteWaitMs;
      if (event.attempts >= opts.maxAttempts && !waiting) {
        await this.inbox.deadLetter(event.id, `gave up after ${event.attempts} attempts: ${message}`);
        this.metrics.webhookEvent(brokerageId, 'dead');
        this.logger.error(`dead-lettered ${event.eventType} event ${event.id}: ${message}`);
        return 'deadLettered';
      }
      const capMs = waiting ? Math.min(opts.retryCapMs, opts.remoteRetryCapMs) : opts.retryCapMs;
      const backoff = backoffDelayMs({ baseMs: opts.retryBaseMs, capMs, jitter: 'full' }, event.attempts);
      const delay = waiting ? Math.max(backoff, (error as RemoteError).retryAfterMs ?? 0) : backoff;
      await this.inbox.markFailed(event.id, message, new Date(this.clock.nowMs() + delay));
      this.metrics.webhookEvent(brokerageId, 'failed');
      const until = !waiting
        ? ''
        : waitsOnWork
          ? '; retried while it waits'
          : '; retried until the remote answers';
      this.logger.warn(
        `${event.eventType} event ${event.id} failed (attempt ${event.attempts}${until}): ${message}`,
      );
      return 'failed';
    }
  }
}

// The record an event is about, from the ids the service's events carry, for the log line.
function recordOf(payload: string): string {
  try {
    const body = JSON.parse(payload) as Record<string, unknown>;
    const ids = ['offer_request_id', 'offer_id', 'counter_offer_id']
      .map((key) => [key, body[key]] as const)
      .filter(([, value]) => typeof value === 'string' || typeof value === 'number');
    return ids.length > 0
      ? ` (${ids.map(([k, v]) => `${k.replace(/_/g, ' ')} ${String(v)}`).join(', ')})`
      : '';
  } catch {
    return '';
  }
}
