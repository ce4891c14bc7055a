import { Injectable, Logger } from '@nestjs/common';
import { wantsCrmChangeWebhooks } from '../brokerages/crm-webhook-url';
import { Clock } from '../common/clock';
import { ConfigService } from '../config/config.service';
import { isFubChangeEvent, isValidFubSignature, parseFubWebhook } from '../crm/followupboss';
import { MetricsService, type CrmWebhookResult } from '../observability/metrics/metrics.service';
import { EarlyRunTrigger } from '../scheduler/early-run.trigger';
import { RecentIds } from './recent-ids';
import { RefusalLog } from './refusal-log';

export type CrmIntakeOutcome =
  { status: 401 } | { status: 400; reason: string } | { status: 200; result: CrmWebhookResult };

// Per brokerage: FUB redelivers for hours, so a few thousand ids cover a burst and its retries.
const REMEMBERED_EVENT_IDS = 5_000;

// A CRM's change notification is a hint, never data: once its signature holds it only asks for an
// early crm-changes run, and the change reader then reads the CRM as on any cron tick.
@Injectable()
export class CrmWebhookIntakeService {
  private readonly logger = new Logger(CrmWebhookIntakeService.name);
  private readonly recent = new Map<string, RecentIds>();
  private readonly refusals: RefusalLog;

  constructor(
    private readonly config: ConfigService,
    private readonly trigger: EarlyRunTrigger,
    private readonly metrics: MetricsService,
    clock: Clock,
  ) {
    this.refusals = new RefusalLog(this.logger, clock);
  }

  async receiveFollowUpBoss(
    brokerageId: string,
    rawBody: Buffer,
    signature: string | undefined,
  ): Promise<CrmIntakeOutcome> {
    const brokerage = this.config.get(brokerageId);
    const systemKey = brokerage?.secrets.crmSystemKey;
    const accepting = brokerage && brokerage.config.enabled !== false && wantsCrmChangeWebhooks(brokerage);
    // An unknown brokerage, one not taking FUB webhooks and a bad signature answer alike, so the
    // URL space reveals nothing; the metric does not label attacker-chosen ids.
    if (!accepting || !systemKey || !isValidFubSignature(rawBody, signature, systemKey)) {
      this.metrics.crmWebhookEvent(accepting ? brokerageId : 'unknown', 'followupboss', 'rejected');
      this.refusals.warn(
        accepting ? brokerageId : 'unknown',
        accepting
          ? `refused a Follow Up Boss webhook for ${brokerageId}: the FUB-Signature does not match its system key`
          : `refused a Follow Up Boss webhook for "${brokerageId.slice(0, 64)}": no brokerage there takes them`,
      );
      return { status: 401 };
    }
    const parsed = parseFubWebhook(rawBody);
    if (!parsed.ok) {
      this.metrics.crmWebhookEvent(brokerageId, 'followupboss', 'invalid');
      this.refusals.warn(
        brokerageId,
        `refused a Follow Up Boss webhook for ${brokerageId}: ${parsed.reason}`,
      );
      return { status: 400, reason: parsed.reason };
    }
    const { eventId, event } = parsed.payload;
    const recent = this.recentOf(brokerageId);
    if (!recent.add(eventId)) return this.answer(brokerageId, 'duplicate', event, eventId);
    if (!isFubChangeEvent(event)) return this.answer(brokerageId, 'ignored', event, eventId);
    try {
      return this.answer(brokerageId, await this.trigger.request(brokerageId, 'crm-changes'), event, eventId);
    } catch (error) {
      // Not counted as seen, so FUB's retry of this event is not taken for a duplicate.
      recent.forget(eventId);
      throw error;
    }
  }

  private answer(
    brokerageId: string,
    outcome: 'duplicate' | 'ignored' | 'queued' | 'coalesced' | 'skipped',
    event: string,
    eventId: string,
  ): CrmIntakeOutcome {
    const result: CrmWebhookResult = outcome === 'queued' ? 'triggered' : outcome;
    this.metrics.crmWebhookEvent(brokerageId, 'followupboss', result);
    this.logger.debug(`Follow Up Boss ${event} ${eventId} for ${brokerageId}: ${result}`);
    return { status: 200, result };
  }

  // A notification not declared as JSON, refused unread (415); counted for a brokerage that takes them.
  refuseMediaType(brokerageId: string, vendor: 'followupboss' | 'hubspot'): void {
    const known = this.config.get(brokerageId) !== undefined;
    this.metrics.crmWebhookEvent(known ? brokerageId : 'unknown', vendor, 'unsupported_media_type');
  }

  private recentOf(brokerageId: string): RecentIds {
    let recent = this.recent.get(brokerageId);
    if (!recent) this.recent.set(brokerageId, (recent = new RecentIds(REMEMBERED_EVENT_IDS)));
    return recent;
  }
}
