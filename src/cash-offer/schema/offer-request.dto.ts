import { Property, PrelimInventory, UpdatableProperty, type PropertyPayload } from './property.dto';
import { WireField, WireObject, WireRefused } from './wire-field.decorator';
import { MEDIA_MAX_ITEMS, MEDIA_URL_MAX_LENGTH } from './wire.constants';

// Offer requests: the bodies of POST/PATCH /offer-requests and prelim, and what the service answers.

const MEDIA = {
  type: 'url-array',
  maxItems: MEDIA_MAX_ITEMS,
  maxLength: MEDIA_URL_MAX_LENGTH,
  nullable: true,
  description: 'photo URLs to attach',
} as const;

// The analyst assumptions item; only buyers send and see it.
@WireObject('is not an assumption field the service knows')
export class Assumption {
  @WireField({ type: 'integer' })
  assumption_id?: number;
  @WireField({ type: 'datetime' })
  created_at?: string;
  @WireField({ type: 'integer' })
  inventory_property_id?: number;
  @WireField({ type: 'integer' })
  ltr_monthly_rent?: number;
  @WireField({ type: 'number' })
  ltr_annual_rent_increase?: number;
  @WireField({ type: 'integer' })
  ltr_arv?: number;
  @WireField({ type: 'integer' })
  ltr_renovation_cost?: number;
  @WireField({ type: 'integer' })
  str_season_1_daily_rate?: number;
  @WireField({ type: 'integer' })
  str_season_2_daily_rate?: number;
  @WireField({ type: 'integer' })
  str_season_3_daily_rate?: number;
  @WireField({ type: 'integer' })
  str_season_4_daily_rate?: number;
  @WireField({ type: 'integer' })
  str_arv?: number;
  @WireField({ type: 'integer' })
  str_renovation_cost?: number;
  @WireField({ type: 'integer' })
  rr_weekly_rent_per_room?: number;
  @WireField({ type: 'integer' })
  rr_arv?: number;
  @WireField({ type: 'integer' })
  rr_beds?: number;
  @WireField({ type: 'integer' })
  rr_baths?: number;
  @WireField({ type: 'integer' })
  rr_renovation_cost?: number;
  @WireField({ type: 'integer' })
  ff_arv?: number;
  @WireField({ type: 'integer' })
  ff_renovation_cost?: number;
  @WireField({ type: 'integer' })
  property_annual_tax?: number;
  @WireField({ type: 'integer' })
  property_annual_hoa?: number;
  @WireField({ type: 'object-array' })
  reno_items?: Record<string, unknown>[];
  @WireField({ type: 'integer' })
  fmv?: number;
}

// The `request` object of a creation body.
@WireObject('is not a request field the service knows')
export class RequestObject {
  @WireField({ type: 'integer', min: 1, required: true, description: 'asking price, whole dollars' })
  offer_request_asking: number;
  @WireField({ type: 'boolean', nullable: true })
  test?: boolean | null;
  @WireField({ type: 'string', maxLength: 255, nullable: true, description: "the caller's own identifier" })
  offer_request_external_id?: string | null;
  @WireField({ type: 'string', maxLength: 50, nullable: true })
  offer_request_deal_type?: string | null;
  @WireField({ type: 'boolean', nullable: true })
  offer_request_is_mls?: boolean | null;
}

@WireObject('is not part of an offer request body')
export class CreateOfferRequestBody {
  @WireField({ type: 'nested', nested: () => RequestObject, required: true })
  request: RequestObject;
  @WireField({ type: 'nested', nested: () => Property, required: true })
  property: PropertyPayload;
  @WireField(MEDIA)
  media?: string[] | null;
  @WireField({ type: 'nested-array', nested: () => Assumption, description: 'buyers only' })
  assumptions?: Assumption[];
  // Where a service that does not take it on the request object wants it ("given on the request"
  // is all the spec says): the client moves it here after such a refusal (external-id-placement.ts).
  @WireField({
    type: 'string',
    maxLength: 255,
    nullable: true,
    description: "the caller's own identifier, where a service takes it beside the request object",
  })
  offer_request_external_id?: string | null;
}

const NOT_UPDATABLE =
  '{path} cannot be changed after submission; the service updates only the listing-agent fields and media';

// PATCH /offer-requests/{id}: only the listing-agent fields and media may change after submission.
@WireObject('is not part of an offer request update')
export class UpdateOfferRequestBody {
  @WireField({ type: 'nested', nested: () => UpdatableProperty })
  property?: UpdatableProperty;
  @WireField(MEDIA)
  media?: string[] | null;
  @WireRefused(NOT_UPDATABLE)
  request?: never;
  @WireRefused(NOT_UPDATABLE)
  assumptions?: never;
  // The body form names the request here; the path form ignores it.
  @WireField({ type: 'integer', min: 1 })
  offer_request_id?: number;
}

// The body form, PATCH /offer-requests/: { offer_request_id, media }.
@WireObject('is not part of a media update')
export class AddMediaBody {
  @WireField({ type: 'integer', min: 1, required: true })
  offer_request_id: number;
  @WireField({ ...MEDIA, nullable: false, required: true })
  media: string[];
}

@WireObject('is not part of a prelim request')
export class PrelimBody {
  @WireField({ type: 'nested', nested: () => PrelimInventory, required: true })
  inventory: PrelimInventory & Record<string, unknown>;
}

@WireObject('is not part of a prelim answer')
export class PrelimResult {
  @WireField({ type: 'integer', min: 0, required: true })
  buyer_count: number;
  @WireField({ type: 'integer', min: 0, required: true })
  buy_box_count: number;
}

// The offer request record (the create answer, the quickstart form with the three ids).
@WireObject('is not an offer request field the service knows')
export class OfferRequestRecord {
  @WireField({ type: 'integer' })
  offer_request_id?: number;
  @WireField({ type: 'string' })
  requested_by_agent?: string;
  @WireField({ type: 'string' })
  submitted_by_user?: string;
  @WireField({ type: 'integer', required: true })
  inventory_property_id: number;
  @WireField({ type: 'datetime', required: true })
  offer_requested_at: string;
  @WireField({ type: 'string', nullable: true })
  offer_requested_decided_by?: string | null;
  @WireField({ type: 'boolean', nullable: true })
  offer_request_is_mls?: boolean | null;
  @WireField({ type: 'string', nullable: true })
  offer_request_deal_type?: string | null;
  @WireField({ type: 'integer', required: true })
  offer_request_asking: number;
  @WireField({ type: 'datetime', nullable: true })
  offer_request_expires_at?: string | null;
  @WireField({ type: 'boolean', nullable: true })
  offer_request_is_approved?: boolean | null;
  @WireField({ type: 'datetime', nullable: true })
  offer_request_decided_at?: string | null;
  @WireField({ type: 'datetime', nullable: true })
  offer_request_viewed_at?: string | null;
  @WireField({ type: 'datetime', nullable: true })
  offer_request_refreshed_at?: string | null;
  // Readers keep status values they do not know (KNOWN_OFFER_REQUEST_STATUSES are the known ones).
  @WireField({ type: 'string', required: true })
  offer_request_status: string;
  @WireField({ type: 'string', nullable: true })
  offer_request_external_id?: string | null;
  @WireField({ type: 'boolean', nullable: true })
  test?: boolean | null;
}

// The `request` of an active-list item: the declared asking price and `test`, plus the ids and
// status the sandbox adds (spec-decisions.md); readers cope with their absence.
export class ActiveRequest extends RequestObject {
  @WireField({ type: 'integer' })
  offer_request_id?: number;
  @WireField({ type: 'integer' })
  inventory_property_id?: number;
  @WireField({ type: 'string' })
  offer_request_status?: string;
  @WireField({ type: 'datetime' })
  offer_requested_at?: string;
}

// One item of GET /active-offer-requests.
@WireObject('is not part of an active offer request')
export class ActiveOfferRequest {
  @WireField({ type: 'nested', nested: () => ActiveRequest, required: true })
  request: ActiveRequest;
  @WireField({ type: 'nested', nested: () => Property, required: true })
  property: PropertyPayload;
  @WireField({ type: 'nested-array', nested: () => Assumption, description: 'only for buyers' })
  assumptions?: Assumption[];
  @WireField({ type: 'string-array', required: true, description: 'signed URLs, valid 10 minutes' })
  media: string[];
}

export interface ActiveOfferRequestsQuery {
  limit?: number;
  offset?: number;
  sort?: string;
}
