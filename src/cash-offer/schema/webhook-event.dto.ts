import { Offer } from './offer.dto';
import { WireField, WireObject, fieldsOf, pickFields } from './wire-field.decorator';

// The service's webhook deliveries, one class per `event`.

@WireObject('is not a field of the offer_request_approved event')
export class OfferRequestApprovedEvent {
  @WireField({ type: 'string', enum: ['offer_request_approved'], required: true })
  event: 'offer_request_approved';
  @WireField({ type: 'integer', min: 1, required: true })
  offer_request_id: number;
  @WireField({ type: 'string', required: true })
  offer_request_status: string;
}

// What a new_offer delivery must carry to be routed; the rest of the offer is checked as the
// Offer's fields but may be absent (the handler reads the offer again from GET /offers).
const NEW_OFFER_REQUIRED = ['offer_id', 'offer_request_id', 'offer_amount', 'offer_status'] as const;
type NewOfferRequired = (typeof NEW_OFFER_REQUIRED)[number];
const OFFER_FIELDS = Object.keys(fieldsOf(Offer)) as (keyof Offer)[];

const OfferAsDelivered = pickFields(
  Offer,
  OFFER_FIELDS,
  Object.fromEntries(
    OFFER_FIELDS.filter((f) => !(NEW_OFFER_REQUIRED as readonly string[]).includes(f)).map((f) => [
      f,
      { required: false },
    ]),
  ),
  // Typed as what it checks: the four routing fields present, the others possibly absent.
) as new () => Pick<Offer, NewOfferRequired> & Partial<Omit<Offer, NewOfferRequired>>;

@WireObject('is not a field of the new_offer event')
export class NewOfferEvent extends OfferAsDelivered {
  @WireField({ type: 'string', enum: ['new_offer'], required: true })
  event: 'new_offer';
}

// The counter-rejection callback; its payload is "not shown", this is our decision. Nothing is
// required at receipt: the handler needs counter_offer_id and offer_request_id and says so.
@WireObject('is not a field of the UPDATE callback')
export class OfferUpdateEvent {
  @WireField({ type: 'string', enum: ['UPDATE'], required: true })
  event: 'UPDATE';
  @WireField({ type: 'string' })
  update_type?: string;
  @WireField({ type: 'integer', min: 1 })
  counter_offer_id?: number;
  @WireField({ type: 'integer', min: 1 })
  offer_id?: number;
  @WireField({ type: 'integer', min: 1 })
  offer_request_id?: number;
  @WireField({ type: 'string', nullable: true })
  offer_request_external_id?: string | null;
  @WireField({ type: 'string' })
  counter_offer_status?: string;
  @WireField({ type: 'datetime' })
  updated_at?: string;
}

// What a delivery must carry, of the right types, to be stored and routed. The rest of the payload
// is checked by its handler: a broken rule there flags the stored event with the reason.
@WireObject('is not part of the new_offer routing fields')
export class NewOfferEnvelope extends pickFields(Offer, NEW_OFFER_REQUIRED, {
  offer_amount: { type: 'number', min: undefined, problem: undefined },
}) {}

export const EVENT_ENVELOPES = {
  offer_request_approved: OfferRequestApprovedEvent,
  new_offer: NewOfferEnvelope,
} as const;

export type ServiceEvent = OfferRequestApprovedEvent | NewOfferEvent | OfferUpdateEvent;

// The wire class of each event the service sends.
export const EVENT_PAYLOADS = {
  offer_request_approved: OfferRequestApprovedEvent,
  new_offer: NewOfferEvent,
  UPDATE: OfferUpdateEvent,
} as const;
