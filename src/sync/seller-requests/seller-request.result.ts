import type { OfferRequestRecord } from '../../cash-offer/schema';

// What a done create_offer_request command keeps as its result.
export interface SellerRequestResult {
  offer_request_id?: number;
  inventory_property_id?: number;
  offer_request_status?: string;
  offer_requested_at?: string;
  found_by?: string;
}

export function toSellerRequestResult(record: OfferRequestRecord | undefined): SellerRequestResult {
  return {
    offer_request_id: record?.offer_request_id,
    inventory_property_id: record?.inventory_property_id,
    offer_request_status: record?.offer_request_status,
    offer_requested_at: record?.offer_requested_at,
  };
}
