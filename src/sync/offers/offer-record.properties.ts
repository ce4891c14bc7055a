import { CASH_OFFERS_PIPELINE, type CrmStageMap } from '../../crm';

// The properties of an offer record (a deal in the cash-offers pipeline), see CASH_OFFER_CRM_SCHEMA.
export const OFFER = {
  id: 'cash_offer_offer_id',
  requestRef: 'cash_offer_offer_request_ref',
  amount: 'cash_offer_offer_amount',
  status: 'cash_offer_offer_status',
  buyerPaysBuyerBroker: 'cash_offer_buyer_pays_buyer_broker_commission',
  buyerPaysListingBroker: 'cash_offer_buyer_pays_listing_broker_commission',
  buyerBrokerPct: 'cash_offer_buyer_broker_commission_pct',
  buyerBrokerAmt: 'cash_offer_buyer_broker_commission_amt',
  listingBrokerPct: 'cash_offer_listing_broker_commission_pct',
  listingBrokerAmt: 'cash_offer_listing_broker_commission_amt',
  sellerNet: 'cash_offer_seller_net',
  buyerCost: 'cash_offer_buyer_cost',
  createdAt: 'cash_offer_offer_created_at',
  expires: 'cash_offer_offer_expires',
  memo: 'cash_offer_offer_memo',
  additionalTerms: 'cash_offer_additional_terms',
  earnestMoney: 'cash_offer_earnest_money',
  emHard: 'cash_offer_em_hard_post_inspection',
  leaseBack: 'cash_offer_lease_back',
  leaseBackPeriod: 'cash_offer_lease_back_period',
  flexibleClosing: 'cash_offer_flexible_closing',
  postPossession: 'cash_offer_post_possession',
  postPossessionPeriod: 'cash_offer_post_possession_period',
  waiveWarranty: 'cash_offer_waive_warranty',
  inspectionPeriod: 'cash_offer_inspection_period',
  isCounterOffer: 'cash_offer_is_counter_offer',
  decidedAt: 'cash_offer_offer_decided_at',
  test: 'cash_offer_offer_test',
  counterId: 'cash_offer_counter_offer_id',
  counterStatus: 'cash_offer_counter_status',
  decisionError: 'cash_offer_decision_error',
} as const;

// What the agent fills before moving the record to "counter requested", spec field by spec field.
export const COUNTER_INPUT = {
  counter_offer_amount: 'cash_offer_counter_amount',
  buyer_pays_buyer_broker_commission: 'cash_offer_counter_buyer_pays_buyer_broker_commission',
  buyer_pays_listing_broker_commission: 'cash_offer_counter_buyer_pays_listing_broker_commission',
  listing_broker_commission_pct: 'cash_offer_counter_listing_broker_commission_pct',
  counter_offer_memo: 'cash_offer_counter_memo',
  counter_offer_expires: 'cash_offer_counter_expires',
  counter_offer_terms: 'cash_offer_counter_terms',
  counter_earnest_money: 'cash_offer_counter_earnest_money',
  counter_em_hard_post_inspection: 'cash_offer_counter_em_hard_post_inspection',
  counter_lease_back: 'cash_offer_counter_lease_back',
  counter_lease_back_period: 'cash_offer_counter_lease_back_period',
  counter_flexible_closing: 'cash_offer_counter_flexible_closing',
  counter_post_possession: 'cash_offer_counter_post_possession',
  counter_post_possession_period: 'cash_offer_counter_post_possession_period',
  counter_waive_warranty: 'cash_offer_counter_waive_warranty',
  counter_inspection_period: 'cash_offer_counter_inspection_period',
} as const;

// Stage keys of the cash-offers pipeline (CASH_OFFER_CRM_SCHEMA).
export type OfferStage =
  | 'incoming'
  | 'accept_requested'
  | 'accepted'
  | 'reject_requested'
  | 'rejected'
  | 'counter_requested'
  | 'countered'
  | 'counter_rejected'
  | 'expired';

// The CRM's id for an offer stage. A CRM set up before the Expired stage existed (setup-crm not run
// since) shows an expired offer as Rejected, as the daemon did before, rather than failing the write.
export function offerStageId(stages: CrmStageMap, stage: OfferStage): string {
  const shown = stage === 'expired' && !stages.hasStage(CASH_OFFERS_PIPELINE, 'expired') ? 'rejected' : stage;
  return stages.stageId(CASH_OFFERS_PIPELINE, shown);
}
