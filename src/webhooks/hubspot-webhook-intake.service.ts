import { Injectable, Logger } from '@nestjs/common';
import { crmWebhookUrl, takesHubSpotWebhooks } from '../brokerages/crm-webhook-url';
import { Clock } from '../common/clock';
import { ConfigService } from '../config/config.service';
import { checkHubSpotSignatureV3, isHubSpotChangeEvent, parseHubSpotWebhook } from '../crm/hubspot';
import { CrmWebhookEventRepository } from '../ledger/repositories/crm-webhook-event.repository';
import { MetricsService, type CrmWebhookResult } from '../observability/metrics/metrics.service';
import { EarlyRunTrigger } from '../scheduler/early-run.trigger';
import type { CrmIntakeOutcome } from './crm-webhook-intake.service';
import { FollowUpRuns } from './follow-up-runs';
import { RefusalLog } from './refusal-log';

const CRM = 'hubspot';

export interface HubSpotDelivery {
  method: string;
  // The request's path and query as the listener saw it.
  originalUrl: string;
  rawBody: Buffer;
  signature: string | undefined;
  timestamp: string | undefined;
}

// HubSpot's change webhooks (a batch of events, signed v3 with the app's client secret) are a hint,
// never data: once the signature holds and the batch names an event id not taken before (in the
// ledger, so on any worker), they ask for one early crm-changes run, which reads HubSpot itself, and
// a few follow-ups for HubSpot's search lag (FollowUpRuns).
@Injectable()
export class HubSpotWebhookIntakeService {
  private readonly logger = new Logger(HubSpotWebhookIntakeService.name);
  private readonly refusals: RefusalLog;

  constructor(
    private readonly config: ConfigService,
    private readonly events: CrmWebhookEventRepository,
    private readonly trigger: EarlyRunTrigger,
    private readonly followUps: FollowUpRuns,
    private readonly metrics: MetricsService,
    private readonly clock: Clock,
  ) {
    this.refusals = new RefusalLog(this.logger, clock);
  }

  async receive(brokerageId: string, delivery: HubSpotDelivery): Promise<CrmIntakeOutcome> {
    const brokerage = this.config.get(brokerageId);
    const accepting = brokerage && brokerage.config.enabled !== false && takesHubSpotWebhooks(brokerage);
    // An unknown brokerage, one not taking HubSpot webhooks and a bad signature answer alike; the
    // metric does not label attacker-chosen ids.
    if (!accepting)
      return this.refuse('unknown', 'forged', `no brokerage "${brokerageId.slice(0, 64)}" takes them`);
    // The URI HubSpot signed is the target URL it was given (setup-crm prints and writes it): the
    // configured public URL, whatever host or path prefix a reverse proxy shows the listener.
    const query = delivery.originalUrl.includes('?')
      ? delivery.originalUrl.slice(delivery.originalUrl.indexOf('?'))
      : '';
    const check = checkHubSpotSignatureV3(
      {
        method: delivery.method,
        uri: `${crmWebhookUrl(brokerage)}${query}`,
        rawBody: delivery.rawBody,
        timestamp: delivery.timestamp ?? '',
      },
      delivery.signature,
      brokerage.secrets.crmClientSecret!,
      this.clock.nowMs(),
    );
    if (check === 'forged')
      return this.refuse(
        brokerageId,
        'forged',
        'the X-HubSpot-Signature-v3 does not match its client secret',
      );
    if (check === 'stale')
      return this.refuse(brokerageId, 'stale', 'its X-HubSpot-Request-Timestamp is more than 5 minutes away');
    const parsed = parseHubSpotWebhook(delivery.rawBody);
    if (!parsed.ok) {
      this.metrics.crmWebhookEvent(brokerageId, CRM, 'invalid');
      this.refusals.warn(brokerageId, `refused a HubSpot webhook for ${brokerageId}: ${parsed.reason}`);
      return { status: 400, reason: parsed.reason };
    }
    const fresh = new Set(
      await this.events.remember(
        brokerageId,
        CRM,
        parsed.events.map((e) => e.eventId),
      ),
    );
    if (fresh.size === 0) {
      // Every event was taken before: HubSpot's retry of a batch whose answer it lost, or a replay.
      this.metrics.crmWebhookEvent(brokerageId, CRM, 'replayed');
      this.logger.debug(`HubSpot batch for ${brokerageId}: every event id already taken`);
      return { status: 200, result: 'replayed' };
    }
    const changes = parsed.events.filter((e) => fresh.has(e.eventId) && isHubSpotChangeEvent(e));
    if (changes.length === 0) return this.answer(brokerageId, 'ignored', fresh.size);
    try {
      const outcome = await this.trigger.request(brokerageId, 'crm-changes');
      // The run asked for now may come before HubSpot's search shows the change: a few follow.
      if (outcome !== 'skipped') this.followUps.schedule(brokerageId, 'crm-changes');
      return this.answer(brokerageId, outcome, fresh.size);
    } catch (error) {
      // Not kept as taken, so HubSpot's retry of this batch is not dropped.
      await this.events.forget(brokerageId, CRM, [...fresh]).catch(() => undefined);
      throw error;
    }
  }

  private answer(
    brokerageId: string,
    outcome: 'ignored' | 'queued' | 'coalesced' | 'skipped',
    events: number,
  ): CrmIntakeOutcome {
    const result: CrmWebhookResult = outcome === 'queued' ? 'triggered' : outcome;
    this.metrics.crmWebhookEvent(brokerageId, CRM, result);
    this.logger.debug(`HubSpot batch of ${events} new event(s) for ${brokerageId}: ${result}`);
    return { status: 200, result };
  }

  private refuse(brokerageId: string, result: 'forged' | 'stale', why: string): CrmIntakeOutcome {
    this.metrics.crmWebhookEvent(brokerageId, CRM, result);
    this.refusals.warn(brokerageId, `refused a HubSpot webhook for ${brokerageId}: ${why}`);
    return { status: 401 };
  }
}
