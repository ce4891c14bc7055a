import { Injectable } from '@nestjs/common';
import { EmailRecord, StoredOfferRequest } from './sandbox.types';
import { SandboxClock } from './sandbox.clock';
import { SandboxStore } from './sandbox.store';
import { SpecReadings, type SpecReadingValues } from './spec-readings';
import { writeTimestamps } from './timestamp-format';
import { WebhookSender } from './webhook.sender';

export const ACQUISITIONS_EMAIL = 'acquisitions@cash-offer.sandbox';

const EVENT_CONTENT_TYPES: Record<SpecReadingValues['eventContentType'], string> = {
  json: 'application/json',
  'text-plain': 'text/plain;charset=UTF-8',
  form: 'application/x-www-form-urlencoded',
};

// Emails (recorded, readable through the control API) and webhook events to the request owner's URL.
@Injectable()
export class Notifier {
  constructor(
    private readonly store: SandboxStore,
    private readonly clock: SandboxClock,
    private readonly webhooks: WebhookSender,
    private readonly readings: SpecReadings,
  ) {}

  // ListAgentEmail when the request has one, else the address the account was set up with.
  recipientOf(r: StoredOfferRequest): string {
    const listAgentEmail = r.property.ListAgentEmail;
    if (typeof listAgentEmail === 'string' && listAgentEmail !== '') return listAgentEmail;
    return this.store.accountOf(r)?.email ?? 'unknown@sandbox.example';
  }

  email(
    r: StoredOfferRequest,
    kind: EmailRecord['kind'],
    subject: string,
    text: string,
    offerId?: number,
    to: string = this.recipientOf(r),
  ): void {
    this.store.emails.push({
      id: this.store.nextEmailId(),
      to,
      subject,
      text,
      kind,
      offer_request_id: r.offer_request_id,
      offer_id: offerId,
      sent_at: this.clock.nowIso(),
    });
  }

  event(r: StoredOfferRequest, event: Record<string, unknown>, method: 'POST' | 'PATCH' = 'POST'): void {
    const url = this.store.webhookUrls.get(r.ownerKey);
    if (!url) return;
    const { timestampFormat, eventContentType, eventDelivery } = this.readings.current;
    this.webhooks.send(url, writeTimestamps(event, timestampFormat), {
      method,
      contentType: EVENT_CONTENT_TYPES[eventContentType],
      retried: eventDelivery === 'retried',
    });
  }
}
