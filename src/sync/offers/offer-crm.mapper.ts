import type { Offer } from '../../cash-offer/schema';
import { CRM_ROLE, type CrmProperties } from '../../crm';
import { toCrmDateTime, toCrmValue } from '../common/crm-values';
import { offerEconomics } from './offer-economics';
import { OFFER, type OfferStage } from './offer-record.properties';
import { offerRecordView, type CounterKnowledge, type OfferRecordFacts } from './offer-record.view';

export interface OfferCrmInput {
  offer: Offer;
  // The counter the agent made on this offer, when there is one (from the ledger).
  counter?: CounterKnowledge;
  // Every offer listed on the same request; the offer alone when not given.
  requestOffers?: readonly Offer[];
  otherCounters?: OfferRecordFacts['otherCounters'];
  // When the offers were read from the service.
  readAt?: Date;
  // When that read's answer came (OffersRead.answeredAt).
  answeredAt?: Date;
  // The last read that showed this record as it was (OfferRecordFacts.shownAsWasAtMs).
  shownAsWasAt?: Date | null;
  countersOutliveExpiry?: boolean;
  refusalListings?: ReadonlySet<string>;
  countersOutliveSellerReject?: boolean;
}

export interface OfferCrmRecord {
  // The offer id: the record's unique key in the CRM.
  key: string;
  properties: CrmProperties;
  stage: OfferStage;
  // A stage that only places a new record: an undecided offer never pulls a record back from the
  // stage an agent moved it to (accept requested, counter requested ...).
  stageOnCreateOnly: boolean;
}

// A Cash Offer offer -> the properties of its CRM offer record, with the spec's commission amounts,
// what the seller nets and what the buyer pays.
export function mapOfferToCrm(input: OfferCrmInput): OfferCrmRecord {
  const { offer } = input;
  const view = offerRecordView({
    offer,
    requestOffers: input.requestOffers ?? [offer],
    counter: input.counter,
    otherCounters: input.otherCounters,
    readAtMs: input.readAt?.getTime(),
    answeredAtMs: input.answeredAt?.getTime(),
    shownAsWasAtMs: input.shownAsWasAt?.getTime(),
    countersOutliveExpiry: input.countersOutliveExpiry,
    refusalListings: input.refusalListings,
    countersOutliveSellerReject: input.countersOutliveSellerReject,
  });
  const money = offerEconomics(offer);
  const properties: CrmProperties = {
    [CRM_ROLE.name]: `Cash offer ${offer.offer_id}: $${offer.offer_amount.toLocaleString('en-US')}`,
    [CRM_ROLE.amount]: toCrmValue(offer.offer_amount),
    [OFFER.id]: String(offer.offer_id),
    [OFFER.requestRef]: String(offer.offer_request_id),
    [OFFER.amount]: toCrmValue(offer.offer_amount),
    [OFFER.status]: offer.offer_status,
    [OFFER.buyerPaysBuyerBroker]: toCrmValue(offer.buyer_pays_buyer_broker_commission),
    [OFFER.buyerPaysListingBroker]: toCrmValue(offer.buyer_pays_listing_broker_commission),
    [OFFER.buyerBrokerPct]: toCrmValue(offer.buyer_broker_commission_pct),
    [OFFER.buyerBrokerAmt]: toCrmValue(money.buyerBrokerCommissionAmt),
    [OFFER.listingBrokerPct]: toCrmValue(offer.listing_broker_commission_pct),
    [OFFER.listingBrokerAmt]: toCrmValue(money.listingBrokerCommissionAmt),
    [OFFER.sellerNet]: toCrmValue(money.sellerNet),
    [OFFER.buyerCost]: toCrmValue(money.buyerCost),
    [OFFER.createdAt]: toCrmDateTime(offer.created_at),
    [OFFER.expires]: toCrmDateTime(offer.offer_expires),
    [OFFER.memo]: toCrmValue(offer.offer_memo),
    [OFFER.additionalTerms]: toCrmValue(offer.additional_terms),
    [OFFER.earnestMoney]: toCrmValue(offer.earnest_money),
    [OFFER.emHard]: toCrmValue(offer.em_hard_post_inspection),
    [OFFER.leaseBack]: toCrmValue(offer.lease_back),
    [OFFER.leaseBackPeriod]: toCrmValue(offer.lease_back_period),
    [OFFER.flexibleClosing]: toCrmValue(offer.flexible_closing),
    [OFFER.postPossession]: toCrmValue(offer.post_possession),
    [OFFER.postPossessionPeriod]: toCrmValue(offer.post_possession_period),
    [OFFER.waiveWarranty]: toCrmValue(offer.waive_warranty),
    [OFFER.inspectionPeriod]: toCrmValue(offer.inspection_period),
    [OFFER.isCounterOffer]: toCrmValue(offer.offer_is_counter_offer ?? false),
    [OFFER.decidedAt]: toCrmDateTime(offer.offer_decided_at),
  };
  if (view.counterId !== undefined) properties[OFFER.counterId] = view.counterId;
  if (view.counterStatus !== undefined) properties[OFFER.counterStatus] = view.counterStatus;
  // Only a test offer carries the property, so every other record's content (and hash) is unchanged.
  if (offer.test === true) properties[OFFER.test] = 'true';
  return {
    key: String(offer.offer_id),
    properties,
    stage: view.stage,
    stageOnCreateOnly: view.stageOnCreateOnly,
  };
}
