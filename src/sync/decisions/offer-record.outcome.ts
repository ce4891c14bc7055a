import { Injectable } from '@nestjs/common';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import type { CashOfferClient } from '../../cash-offer';
import type { Offer } from '../../cash-offer/schema';
import { CASH_OFFERS_PIPELINE } from '../../crm';
import { OFFER, offerStageId } from '../offers/offer-record.properties';
import { OffersService } from '../offers/offers.service';
import type { DecisionTarget } from './decision.command';

// After a decision, a counter or a refusal: the request's offers re-read from the service (the
// cascade), and this record put in the stage the service's facts say (offerRecordView), with the
// message (or none). A service that does not show the decision yet (the offer still listed as
// active) leaves the agent's requested stage alone; a refusal shows where the offer really is.
@Injectable()
export class OfferRecordOutcome {
  constructor(private readonly offers: OffersService) {}

  async show(
    crm: BrokerageCrm,
    client: CashOfferClient,
    target: DecisionTarget,
    message: string | null,
    // The request's offers, when the caller has just read them.
    listed?: Offer[],
  ): Promise<void> {
    const { offers } = listed
      ? await this.offers.applyRequest(crm, listed)
      : await this.offers.refreshRequest(crm, client, target.requestId);
    const offer = offers.find((o) => o.offer_id === target.offerId);
    const record = offer ? await this.offers.recordOf(crm, offer, offers) : undefined;
    const stage = record && (message !== null || !record.stageOnCreateOnly) ? record.stage : undefined;
    const [written] = await crm.port.updateRecords('deal', [
      {
        id: target.recordId,
        properties: { [OFFER.decisionError]: message },
        ...(stage
          ? {
              pipelineId: crm.stages.pipelineId(CASH_OFFERS_PIPELINE),
              stageId: offerStageId(crm.stages, stage),
            }
          : {}),
      },
    ]);
    if (written && !written.ok) throw written.error;
  }
}
