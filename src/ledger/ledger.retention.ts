import { Clock } from '../common/clock';
import { AlertDelivery, CrmWebhookEvent, InboxEvent, OutboxCommand, RecordError, Run } from './entities';
import { LedgerTransactions } from './ledger-transactions';
import { HistoryRepository } from './repositories/history.repository';

// Dedupe keys must outlive the sender's whole retry horizon (3 days at Stripe, ~75 h in Standard
// Webhooks), so done inbox rows are kept at least this long whatever the cutoff.
export const INBOX_DEDUPE_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
// A CRM's notification ids past its retry horizon (HubSpot retries for 24 hours), with a margin.
export const CRM_WEBHOOK_DEDUPE_RETENTION_MS = 2 * 24 * 60 * 60 * 1000;

export interface PruneCounts {
  outbox: number;
  inbox: number;
  runs: number;
  recordErrors: number;
  // Dead and flagged inbox events (bodies up to 256 KiB each), by `deadOlderThan`.
  deadInbox: number;
  // Decision-history entries, by `historyOlderThan` (whole prefixes of each brokerage's chain).
  history: number;
}

// Deletes finished history older than a cutoff: done outbox and inbox rows, finished runs (but never
// the latest run of a job) and resolved errors. Pending, unknown, failed and dead outbox rows are
// never touched: they are work, or writes that may have reached a remote. Dead and flagged inbox
// events are evidence for the operator, kept until their own (usually longer) `deadOlderThan`.
export class LedgerRetention {
  constructor(
    private readonly tx: LedgerTransactions,
    private readonly clock: Clock,
    private readonly history?: HistoryRepository,
  ) {}

  // `historyOlderThan` is the decision history's own cutoff (HISTORY_RETENTION_DAYS, years): without
  // it no history is removed, whatever `olderThan` says.
  prune(options: { olderThan: Date; deadOlderThan?: Date; historyOlderThan?: Date }): Promise<PruneCounts> {
    const cutoff = options.olderThan;
    const dedupeHorizon = this.clock.nowMs() - INBOX_DEDUPE_RETENTION_MS;
    const inboxCutoff = new Date(Math.min(cutoff.getTime(), dedupeHorizon));
    const deadCutoff = options.deadOlderThan
      ? new Date(Math.min(options.deadOlderThan.getTime(), dedupeHorizon))
      : undefined;
    return this.tx.run(async (m) => {
      const outbox = await m
        .createQueryBuilder()
        .delete()
        .from(OutboxCommand)
        .where('state = :done AND completed_at < :cutoff', { done: 'done', cutoff })
        .execute();
      const inbox = await m
        .createQueryBuilder()
        .delete()
        .from(InboxEvent)
        .where('status = :done AND received_at < :cutoff AND processed_at < :cutoff', {
          done: 'done',
          cutoff: inboxCutoff,
        })
        .execute();
      const latestRunIds = m
        .createQueryBuilder(Run, 'l')
        .select('MAX(l.id)')
        .groupBy('l.brokerageId')
        .addGroupBy('l.job')
        .getQuery();
      const runs = await m
        .createQueryBuilder()
        .delete()
        .from(Run)
        .where('status <> :running AND finished_at < :cutoff', { running: 'running', cutoff })
        .andWhere(`id NOT IN (SELECT * FROM (${latestRunIds}) latest)`)
        .execute();
      const recordErrors = await m
        .createQueryBuilder()
        .delete()
        .from(RecordError)
        .where('resolved_at IS NOT NULL AND resolved_at < :cutoff', { cutoff })
        .execute();
      const deadInbox = deadCutoff
        ? await m
            .createQueryBuilder()
            .delete()
            .from(InboxEvent)
            .where('status IN (:...kept) AND received_at < :cutoff', {
              kept: ['dead', 'flagged'],
              cutoff: deadCutoff,
            })
            .execute()
        : undefined;
      // Not counted in PruneCounts: ids without content, nothing an operator reads.
      await m
        .createQueryBuilder()
        .delete()
        .from(CrmWebhookEvent)
        .where('received_at < :cutoff', {
          cutoff: new Date(Math.min(cutoff.getTime(), this.clock.nowMs() - CRM_WEBHOOK_DEDUPE_RETENTION_MS)),
        })
        .execute();
      // Alert notifications sent or given up: the alert itself keeps its state and times.
      await m
        .createQueryBuilder()
        .delete()
        .from(AlertDelivery)
        .where('state IN (:...finished) AND created_at < :cutoff', {
          finished: ['delivered', 'failed'],
          cutoff,
        })
        .execute();
      const history =
        options.historyOlderThan && this.history ? await this.history.prune(options.historyOlderThan, m) : 0;
      return {
        outbox: outbox.affected ?? 0,
        inbox: inbox.affected ?? 0,
        runs: runs.affected ?? 0,
        recordErrors: recordErrors.affected ?? 0,
        deadInbox: deadInbox?.affected ?? 0,
        history,
      };
    });
  }
}
