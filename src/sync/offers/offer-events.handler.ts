import { Injectable, OnModuleInit } from '@nestjs/common';
import { BrokerageClients } from '../../brokerages/brokerage-clients';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import type { JsonObject, Offer } from '../../cash-offer/schema';
import { LinkRepository } from '../../ledger';
import { InboxEventHandlers } from '../../webhooks/inbox-event.handlers';
import { LINK } from '../common/listing-deal.properties';
import { RequestStatusService } from '../request-status/request-status.service';
import { OffersService } from './offers.service';

// Applies the service's events: a new offer (also a buyer accepting our counter), a buyer rejecting
// our counter (UPDATE), a request approved. Each re-reads the request's offers from the service, so
// a repeated or late event converges on the same records and the cascade lands with it.
@Injectable()
export class OfferEventsHandler implements OnModuleInit {
  constructor(
    private readonly handlers: InboxEventHandlers,
    private readonly clients: BrokerageClients,
    private readonly offers: OffersService,
    private readonly status: RequestStatusService,
    private readonly links: LinkRepository,
  ) {}

  onModuleInit(): void {
    this.handlers.register('new_offer', (payload, ctx) => this.onNewOffer(ctx.brokerageId, payload));
    this.handlers.register('UPDATE', (payload, ctx) => this.onUpdate(ctx.brokerageId, payload));
    this.handlers.register('offer_request_approved', (payload, ctx) =>
      this.onApproved(ctx.brokerageId, payload),
    );
  }

  private async onNewOffer(brokerageId: string, payload: JsonObject): Promise<void> {
    const offer = payload as unknown as Offer;
    const crm = await this.clients.crm(brokerageId);
    if (offer.counter_offer_id)
      await this.setCounterStatus(crm, undefined, offer.counter_offer_id, 'accepted');
    await this.refreshRequest(crm, offer.offer_request_id, offer);
  }

  private async onUpdate(brokerageId: string, payload: JsonObject): Promise<void> {
    const crm = await this.clients.crm(brokerageId);
    const counterId = payload.counter_offer_id;
    const status =
      typeof payload.counter_offer_status === 'string' ? payload.counter_offer_status : 'rejected';
    if (typeof counterId === 'number') {
      const offerId = typeof payload.offer_id === 'number' ? payload.offer_id : undefined;
      await this.setCounterStatus(crm, offerId, counterId, status);
    }
    // Without the request id the next offers reconcile brings the records in step.
    if (typeof payload.offer_request_id === 'number')
      await this.refreshRequest(crm, payload.offer_request_id);
  }

  private async onApproved(brokerageId: string, payload: JsonObject): Promise<void> {
    const crm = await this.clients.crm(brokerageId);
    await this.status.apply(crm, payload.offer_request_id as number, String(payload.offer_request_status));
  }

  private async refreshRequest(crm: BrokerageCrm, requestId: number, fromEvent?: Offer): Promise<void> {
    const client = this.clients.cashOffer(crm.brokerageId);
    const { counts } = await this.offers.refreshRequest(crm, client, requestId, fromEvent);
    // Failed records make the event fail, so the inbox retries it with backoff.
    if (counts.failed > 0)
      throw new Error(`${counts.failed} offer record(s) of request ${requestId} could not be written`);
  }

  // The counter's status, kept with the countered offer so its record shows it.
  private async setCounterStatus(
    crm: BrokerageCrm,
    offerId: number | undefined,
    counterId: number,
    status: string,
  ): Promise<void> {
    const link = await this.links.findByCrmId(crm.brokerageId, LINK.counter, String(counterId));
    const countered = link?.remoteId ?? (offerId === undefined ? undefined : String(offerId));
    if (!countered) return;
    await this.links.upsertLinks(crm.brokerageId, LINK.counter, [
      { remoteId: countered, crmId: String(counterId), contentHash: status },
    ]);
  }
}
