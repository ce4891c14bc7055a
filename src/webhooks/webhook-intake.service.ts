import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { InboxRepository } from '../ledger';
import { MetricsService } from '../observability/metrics/metrics.service';
import { malformedDedupeKey, webhookDedupeKey } from './webhook-dedupe-key';
import type { OversizeBody } from './webhook-body';
import { parseWebhookBody } from './webhook-event.parser';
import { isAcceptedSecret } from './webhook-secret';
import { WebhookSecretSource } from './webhook-secret.source';

export type IntakeOutcome =
  | { status: 404 }
  | { status: 400; reason: string }
  | { status: 200; duplicate: boolean; flagged: boolean; eventId: number };

// Verifies, stores, answers: an event is committed to the inbox before the sender hears 2xx.
@Injectable()
export class WebhookIntakeService {
  private readonly logger = new Logger(WebhookIntakeService.name);

  constructor(
    private readonly secrets: WebhookSecretSource,
    private readonly inbox: InboxRepository,
    private readonly metrics: MetricsService,
    private readonly clock: Clock,
  ) {}

  async receive(
    brokerageId: string,
    presentedSecret: string,
    rawBody: Buffer,
    method = 'POST',
  ): Promise<IntakeOutcome> {
    if (!this.authenticated(brokerageId, presentedSecret)) return { status: 404 };
    const parsed = parseWebhookBody(rawBody, method);
    if (!parsed.ok) {
      const { stored } = await this.inbox.storeDeadLetter({
        brokerageId,
        dedupeKey: malformedDedupeKey(brokerageId, rawBody),
        reason: parsed.reason,
        rawBody: rawBody.toString('utf8'),
      });
      // Counted (and logged) once per distinct body, however often the sender retries it.
      this.metrics.webhookEvent(brokerageId, stored ? 'dead' : 'duplicate');
      if (stored) this.logger.warn(`refused a webhook for ${brokerageId}: ${parsed.reason}`);
      return { status: 400, reason: parsed.reason };
    }
    const { stored, id } = await this.inbox.storeIfNew({
      brokerageId,
      dedupeKey: webhookDedupeKey(brokerageId, parsed.payload),
      eventType: parsed.eventType,
      orderingKey: parsed.orderingKey ?? undefined,
      payload: JSON.stringify(parsed.payload),
      flagged: parsed.flagged,
      flagReason: parsed.flagReason,
    });
    this.metrics.webhookEvent(brokerageId, stored ? 'received' : 'duplicate');
    if (stored && parsed.flagged)
      this.logger.warn(`stored a flagged webhook for ${brokerageId}: ${parsed.flagReason}`);
    // The service may add fields the spec does not show: kept and applied, but said once per event.
    if (stored && parsed.unknownFields.length > 0)
      this.logger.warn(
        `webhook ${parsed.eventType} event ${id} for ${brokerageId} carries fields the spec does not show: ${parsed.unknownFields.join(', ')}`,
      );
    return { status: 200, duplicate: !stored, flagged: parsed.flagged, eventId: id };
  }

  // A delivery over the size limit, drained unread: nothing of it can be kept, so it is counted and
  // logged for the brokerage whose URL it came to (the reconcile jobs recover what the service holds).
  async refuseOversize(
    brokerageId: string,
    presentedSecret: string,
    body: OversizeBody,
  ): Promise<{ status: 404 } | { status: 413; reason: string }> {
    if (!this.authenticated(brokerageId, presentedSecret)) return { status: 404 };
    const { reason } = body;
    this.metrics.webhookEvent(brokerageId, 'too_large');
    this.logger.warn(`refused a webhook for ${brokerageId}, unread: ${reason}`);
    return { status: 413, reason };
  }

  // A body declared as a type that cannot be JSON text (json-content-type.ts): refused unread (415)
  // for the brokerage whose URL it came to.
  refuseMediaType(
    brokerageId: string,
    presentedSecret: string,
    contentType: string,
  ): { status: 404 } | { status: 415; reason: string } {
    if (!this.authenticated(brokerageId, presentedSecret)) return { status: 404 };
    const reason = `the body is ${contentType.slice(0, 80)}, which cannot be JSON text; the webhook listener takes a JSON body`;
    this.metrics.webhookEvent(brokerageId, 'unsupported_media_type');
    this.logger.warn(`refused a webhook for ${brokerageId}: ${reason}`);
    return { status: 415, reason };
  }

  // An unknown brokerage and a wrong secret answer alike, so the URL space reveals nothing.
  private authenticated(brokerageId: string, presentedSecret: string): boolean {
    const secrets = this.secrets.secretsFor(brokerageId);
    if (secrets && isAcceptedSecret(presentedSecret, secrets, this.clock.now())) return true;
    this.metrics.webhookEvent(secrets ? brokerageId : 'unknown', 'rejected');
    return false;
  }
}
