import { ApiProperty, ApiSchema, generateSchema, getSchemaPath } from '@nestjs/swagger';
import { apiProperty } from './wire-field.api-property';
import { declaredWireFields } from './wire-field.decorator';
import {
  ActiveOfferRequest,
  AddMediaBody,
  CreateOfferRequestBody,
  OfferRequestRecord,
  PrelimBody,
  PrelimResult,
  UpdateOfferRequestBody,
} from './offer-request.dto';
import {
  BuyerLead,
  BuyerLeadBody,
  PushToMarketplaceBody,
  PushToMarketplaceResult,
  ServiceErrorBody,
  WebhookConfig,
} from './marketplace.dto';
import { CounterOffer, CounterOfferBody, Offer, OfferDecisionBody } from './offer.dto';
import { NewOfferEvent, OfferRequestApprovedEvent, OfferUpdateEvent } from './webhook-event.dto';
import {
  ACTIVE_LIST_DEFAULT_LIMIT,
  ACTIVE_LIST_MAX_LIMIT,
  ACTIVE_LIST_SORTS,
  KNOWN_OFFER_STATUSES,
} from './wire.constants';

type Schema = Record<string, unknown>;
const ref = (dto: new () => object): Schema => {
  documentWireClasses();
  return { $ref: getSchemaPath(dto) };
};

// Every wire class with a place in the document; the nested ones (Property, Assumption...) come with them.
const DOCUMENTED = [
  ServiceErrorBody,
  CreateOfferRequestBody,
  UpdateOfferRequestBody,
  AddMediaBody,
  OfferRequestRecord,
  ActiveOfferRequest,
  PrelimBody,
  PrelimResult,
  Offer,
  OfferDecisionBody,
  CounterOfferBody,
  CounterOffer,
  BuyerLeadBody,
  BuyerLead,
  PushToMarketplaceBody,
  PushToMarketplaceResult,
  WebhookConfig,
  OfferRequestApprovedEvent,
  NewOfferEvent,
  OfferUpdateEvent,
] as const;

// The wire classes' @ApiProperty metadata, put on once, in the order the fields were declared
// (the daemon never loads @nestjs/swagger: wire-field.decorator.ts).
let documentedOnce = false;
function documentWireClasses(): void {
  if (documentedOnce) return;
  documentedOnce = true;
  for (const { target, key, spec } of declaredWireFields()) ApiProperty(apiProperty(spec))(target, key);
  ApiSchema({ name: 'Error' })(ServiceErrorBody);
}

// The schemas of the document, generated from the wire classes' @ApiProperty metadata.
function components(): Record<string, Schema> {
  documentWireClasses();
  let schemas: Record<string, Schema> = {};
  for (const dto of DOCUMENTED)
    schemas = generateSchema(dto as new () => object, schemas).schemas as Record<string, Schema>;
  return Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((name) => [name, schemas[name]]),
  );
}

const json = (schema: Schema) => ({ 'application/json': { schema } });
const body = (schema: Schema) => ({ required: true, content: json(schema) });
const errors = (...codes: number[]) =>
  Object.fromEntries(
    codes.map((c) => [String(c), { description: `error ${c}`, content: json(ref(ServiceErrorBody)) }]),
  );
const COMMON_ERRORS = [400, 401, 403, 404, 409, 413, 415, 429, 500];
const ok = (code: number, description: string, schema?: Schema) => ({
  [String(code)]: schema ? { description, content: json(schema) } : { description },
});

// The OpenAPI 3 document of the Cash Offer API: every path of the spec, the schemas generated from the
// wire classes. The sandbox serves it; `npm run openapi` writes it to docs/openapi.json.
export function buildOpenApiDocument(serverUrl: string): Schema {
  const idParam = { name: 'offer_request_id', in: 'path', required: true, schema: { type: 'integer' } };
  const q = (name: string, schema: Schema, description?: string) => ({
    name,
    in: 'query',
    required: false,
    schema,
    description,
  });
  return {
    openapi: '3.0.3',
    info: { title: 'Cash Offer Request Service', version: '1.0.0' },
    servers: [{ url: serverUrl }],
    security: [{ ApiKey: [] }],
    components: {
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'Authorization' } },
      schemas: components(),
    },
    paths: {
      '/offer-requests': {
        post: {
          summary: 'Create an offer request',
          requestBody: body(ref(CreateOfferRequestBody)),
          responses: { ...ok(201, 'created', ref(OfferRequestRecord)), ...errors(...COMMON_ERRORS) },
        },
      },
      '/offer-requests/': {
        patch: {
          summary: 'Add photos after submission (body form)',
          requestBody: body(ref(AddMediaBody)),
          responses: { ...ok(204, 'updated'), ...errors(...COMMON_ERRORS) },
        },
      },
      '/offer-requests/prelim': {
        post: {
          summary: 'Count matching buyers and buy boxes',
          requestBody: body(ref(PrelimBody)),
          responses: { ...ok(200, 'counts', ref(PrelimResult)), ...errors(400, 401, 413, 415, 429, 500) },
        },
      },
      '/offer-requests/{offer_request_id}': {
        patch: {
          summary: 'Update listing-agent fields and media',
          parameters: [idParam],
          requestBody: body(ref(UpdateOfferRequestBody)),
          responses: { ...ok(204, 'updated'), ...errors(...COMMON_ERRORS) },
        },
      },
      '/active-offer-requests': {
        get: {
          summary: 'All active offer requests (all accounts)',
          parameters: [
            q('limit', {
              type: 'integer',
              format: 'int32',
              minimum: 1,
              maximum: ACTIVE_LIST_MAX_LIMIT,
              default: ACTIVE_LIST_DEFAULT_LIMIT,
            }),
            q('offset', { type: 'integer', format: 'int32', minimum: 0, default: 0 }),
            q('sort', { type: 'string', enum: [...ACTIVE_LIST_SORTS], default: 'offer_requested_at.desc' }),
          ],
          responses: {
            ...ok(200, 'a page', { type: 'array', items: ref(ActiveOfferRequest) }),
            ...errors(400, 401, 429, 500),
          },
        },
      },
      '/offers': {
        get: {
          summary: "Offers on the caller's requests",
          parameters: [
            q('offer_request_id', { type: 'integer' }),
            q('status', { type: 'string', enum: [...KNOWN_OFFER_STATUSES] }),
            q('limit', { type: 'integer', minimum: 1, maximum: 500, default: 500 }),
            q('offset', { type: 'integer', minimum: 0, default: 0 }),
          ],
          responses: {
            ...ok(200, 'offers', { type: 'array', items: ref(Offer) }),
            ...errors(400, 401, 429, 500),
          },
        },
        patch: {
          summary: 'Accept or reject an offer',
          requestBody: body(ref(OfferDecisionBody)),
          responses: { ...ok(200, 'the decided offer', ref(Offer)), ...errors(...COMMON_ERRORS) },
        },
      },
      '/counter-offers': {
        post: {
          summary: 'Counter an offer',
          requestBody: body(ref(CounterOfferBody)),
          responses: { ...ok(201, 'the counter offer', ref(CounterOffer)), ...errors(...COMMON_ERRORS) },
        },
      },
      '/wh': {
        post: {
          summary: 'Register the webhook URL',
          requestBody: body(ref(WebhookConfig)),
          responses: {
            ...ok(201, 'registered', ref(WebhookConfig)),
            ...errors(400, 401, 413, 415, 429, 500),
          },
        },
        patch: {
          summary: 'Replace the webhook URL',
          requestBody: body(ref(WebhookConfig)),
          responses: {
            ...ok(200, 'replaced', ref(WebhookConfig)),
            ...errors(400, 401, 404, 413, 415, 429, 500),
          },
        },
      },
      '/buyer/lead': {
        post: {
          summary: 'Submit a buyer lead',
          requestBody: body(ref(BuyerLeadBody)),
          responses: { ...ok(201, 'the lead', ref(BuyerLead)), ...errors(...COMMON_ERRORS) },
        },
      },
      '/push-to-marketplace': {
        post: {
          summary: 'Post a property to the marketplace',
          requestBody: body(ref(PushToMarketplaceBody)),
          responses: {
            ...ok(200, 'accepted for background processing', ref(PushToMarketplaceResult)),
            ...errors(...COMMON_ERRORS),
          },
        },
      },
    },
  };
}

// The committed copy (docs/openapi.json) names no host: `{base_url}` is the brokerage's.
export const OPENAPI_DOCS_SERVER = '/api/v2';
export const OPENAPI_DOCS_PATH = 'docs/openapi.json';

export function openApiDocsText(): string {
  return `${JSON.stringify(buildOpenApiDocument(OPENAPI_DOCS_SERVER), null, 2)}\n`;
}
