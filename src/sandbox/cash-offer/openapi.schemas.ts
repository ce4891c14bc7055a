import {
  BUYER_LEAD_FIELDS,
  BUYER_LEAD_PROPERTY_ADDRESS_FIELDS,
  BUYER_LEAD_REQUIRED,
  COUNTER_OFFER_FIELDS,
  COUNTER_OFFER_REQUIRED,
  FieldSpec,
  FieldTable,
  KNOWN_OFFER_REQUEST_STATUSES,
  KNOWN_OFFER_STATUSES,
  MEDIA_MAX_ITEMS,
  MEDIA_URL_MAX_LENGTH,
  OFFER_DECISION_FIELDS,
  PRELIM_INVENTORY_FIELDS,
  PROPERTY_FIELDS,
  PUSH_TO_MARKETPLACE_REQUEST_FIELDS,
  REQUEST_FIELDS,
  STORED_PROPERTY_REQUIRED,
  UPDATABLE_PROPERTY_FIELDS,
  WEBHOOK_CONFIG_FIELDS,
} from '../../cash-offer/schema';
import { ASSUMPTION_FIELDS } from './assumption.schema';

export type Schema = Record<string, unknown>;
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

// One field spec as an OpenAPI 3.0 schema.
export function fieldSchema(spec: FieldSpec): Schema {
  const s: Schema = {};
  switch (spec.type) {
    case 'date':
      Object.assign(s, { type: 'string', format: 'date' });
      break;
    case 'datetime':
      Object.assign(s, { type: 'string', format: 'date-time' });
      break;
    case 'string-array':
      Object.assign(s, {
        type: 'array',
        items: spec.enum ? { type: 'string', enum: [...spec.enum] } : { type: 'string' },
      });
      break;
    default:
      s.type = spec.type;
  }
  if (spec.maxLength !== undefined) s.maxLength = spec.maxLength;
  if (spec.enum && spec.type !== 'string-array') s.enum = [...spec.enum];
  if (spec.min !== undefined) s.minimum = spec.min;
  if (spec.nullable) s.nullable = true;
  return s;
}

function objectSchema(
  table: FieldTable,
  required: readonly string[] = [],
  extra: Record<string, Schema> = {},
): Schema {
  const properties: Record<string, Schema> = {};
  for (const [name, spec] of Object.entries(table)) properties[name] = fieldSchema(spec);
  Object.assign(properties, extra);
  const s: Schema = { type: 'object', properties, additionalProperties: false };
  if (required.length > 0) s.required = [...required];
  return s;
}

const ts = { type: 'string', format: 'date-time' };
const nts = { ...ts, nullable: true };
function offerSchema(): Schema {
  const n = { type: 'number' };
  const b = { type: 'boolean' };
  return {
    type: 'object',
    properties: {
      offer_id: { type: 'integer' },
      offer_request_id: { type: 'integer' },
      offer_request_external_id: { type: 'string', nullable: true },
      external_id: { type: 'string', nullable: true },
      offer_amount: { type: 'integer' },
      buyer_pays_buyer_broker_commission: b,
      buyer_pays_listing_broker_commission: b,
      buyer_broker_commission_pct: { type: 'number', enum: [3] },
      buyer_broker_commission_amt: n,
      listing_broker_commission_pct: n,
      listing_broker_commission_amt: n,
      created_at: ts,
      offer_expires: ts,
      offer_memo: { type: 'string' },
      offer_status: { type: 'string', description: `known values: ${KNOWN_OFFER_STATUSES.join(', ')}` },
      additional_terms: { type: 'object', nullable: true },
      earnest_money: n,
      em_hard_post_inspection: b,
      lease_back: b,
      lease_back_period: { ...n, description: 'days' },
      flexible_closing: b,
      post_possession: b,
      post_possession_period: { ...n, description: 'days' },
      waive_warranty: b,
      inspection_period: { ...n, description: 'days' },
      offer_is_counter_offer: { type: 'boolean', nullable: true },
      offer_decided_at: nts,
      test: { type: 'boolean', nullable: true },
      viewed: b,
      offer_feedback: { nullable: true },
      counter_offer_id: { type: 'integer', nullable: true },
    },
  };
}

// Every schema of the document, generated from the shared field schema where it exists.
export function openApiComponents(): Schema {
  const assumption = objectSchema(ASSUMPTION_FIELDS, [], {
    reno_items: { type: 'array', items: { type: 'object' } },
  });
  const requestRecord: Schema = {
    type: 'object',
    properties: {
      offer_request_id: { type: 'integer' },
      requested_by_agent: { type: 'string', format: 'uuid' },
      submitted_by_user: { type: 'string', format: 'uuid' },
      inventory_property_id: { type: 'integer', format: 'int64' },
      offer_requested_at: ts,
      offer_requested_decided_by: { type: 'string', format: 'uuid', nullable: true },
      offer_request_is_mls: { type: 'boolean', nullable: true },
      offer_request_deal_type: { type: 'string', nullable: true },
      offer_request_asking: { type: 'integer', format: 'int64' },
      offer_request_expires_at: nts,
      offer_request_is_approved: { type: 'boolean', nullable: true },
      offer_request_decided_at: nts,
      offer_request_viewed_at: nts,
      offer_request_refreshed_at: nts,
      offer_request_status: { type: 'string', enum: [...KNOWN_OFFER_REQUEST_STATUSES] },
      offer_request_external_id: { type: 'string', nullable: true },
      test: { type: 'boolean', nullable: true },
    },
  };
  const media = {
    type: 'array',
    maxItems: MEDIA_MAX_ITEMS,
    items: { type: 'string', format: 'uri', maxLength: MEDIA_URL_MAX_LENGTH },
  };
  const prelimTable = Object.fromEntries(PRELIM_INVENTORY_FIELDS.map((f) => [f, PROPERTY_FIELDS[f]]));
  const updatable = Object.fromEntries(UPDATABLE_PROPERTY_FIELDS.map((f) => [f, PROPERTY_FIELDS[f]]));
  return {
    Error: {
      type: 'object',
      required: ['error', 'message'],
      properties: { error: { type: 'integer', format: 'int32' }, message: { type: 'string' } },
    },
    Request: objectSchema(REQUEST_FIELDS, ['offer_request_asking']),
    Property: {
      ...objectSchema(PROPERTY_FIELDS, ['StateOrProvince', 'PostalCode', 'MlsStatus']),
      description: `Stored shape requires ${STORED_PROPERTY_REQUIRED.join(', ')}; on creation UnparsedAddress + City may replace StreetNumber, StreetName and PostalCity.`,
    },
    Media: media,
    Assumption: assumption,
    CreateOfferRequest: {
      type: 'object',
      required: ['request', 'property'],
      properties: {
        request: ref('Request'),
        property: ref('Property'),
        media,
        assumptions: { type: 'array', items: ref('Assumption') },
      },
    },
    UpdateOfferRequest: {
      type: 'object',
      properties: { property: objectSchema(updatable), media, offer_request_id: { type: 'integer' } },
    },
    AddMedia: {
      type: 'object',
      required: ['offer_request_id', 'media'],
      properties: { offer_request_id: { type: 'integer' }, media },
    },
    OfferRequestRecord: requestRecord,
    ActiveOfferRequest: {
      type: 'object',
      properties: {
        request: ref('Request'),
        property: ref('Property'),
        assumptions: { type: 'array', items: ref('Assumption'), description: 'only for buyers' },
        media: {
          type: 'array',
          items: { type: 'string', format: 'uri' },
          description: 'signed URLs valid 10 minutes',
        },
      },
    },
    Prelim: {
      type: 'object',
      required: ['inventory'],
      properties: { inventory: objectSchema(prelimTable, ['StateOrProvince', 'PostalCode']) },
    },
    PrelimResult: {
      type: 'object',
      properties: { buyer_count: { type: 'integer' }, buy_box_count: { type: 'integer' } },
    },
    Offer: offerSchema(),
    OfferDecision: objectSchema(OFFER_DECISION_FIELDS, ['offer_id', 'offer_status']),
    CounterOffer: objectSchema(COUNTER_OFFER_FIELDS, COUNTER_OFFER_REQUIRED),
    BuyerLeadRequest: objectSchema(BUYER_LEAD_FIELDS, BUYER_LEAD_REQUIRED, {
      property_address: objectSchema(BUYER_LEAD_PROPERTY_ADDRESS_FIELDS, ['offer_request_id']),
    }),
    BuyerLead: {
      type: 'object',
      properties: {
        created_at: ts,
        lead_id: { type: 'string', format: 'uuid' },
        first_name: { type: 'string' },
        last_name: { type: 'string' },
        primary_email: { type: 'string' },
        primary_phone: { type: 'string' },
        api_partner_user_id: { type: 'string', format: 'uuid' },
        inventory_property_id: { type: 'integer' },
        offer_request_id: { type: 'integer' },
      },
    },
    PushToMarketplace: {
      type: 'object',
      required: ['request'],
      properties: { request: objectSchema(PUSH_TO_MARKETPLACE_REQUEST_FIELDS, ['inventory_property_id']) },
    },
    PushToMarketplaceResult: {
      type: 'object',
      properties: {
        success: { type: 'boolean' },
        message: { type: 'string' },
        inventory_property_id: { type: 'integer' },
      },
    },
    WebhookConfig: objectSchema(WEBHOOK_CONFIG_FIELDS, ['url']),
  };
}
