import type { FieldViolation } from '../../cash-offer/schema';
import {
  AddMediaBody,
  CreateOfferRequestBody,
  MEDIA_MAX_ITEMS,
  PROPERTY_FIELDS,
  validateWire,
} from '../../cash-offer/schema';
import type { CrmFieldMapping, CrmFieldSource } from '../../crm/mapping/crm-field-mapping';
import type { CrmRecord } from '../../crm';
import { crmBoolean, crmString } from '../common/crm-values';
import { DEAL } from '../common/listing-deal.properties';

export interface ListingDealInput {
  deal: Pick<CrmRecord, 'id' | 'properties'>;
  sellerContact?: Pick<CrmRecord, 'id' | 'properties'>;
  mapping: CrmFieldMapping;
  // The brokerage is in test mode: the request is a test record whatever the deal says.
  testMode?: boolean;
}

export interface OfferRequestMapping {
  body: CreateOfferRequestBody;
  // Every reason the service would refuse the body, each naming the spec field and the CRM property.
  violations: FieldViolation[];
}

// Listing deal + seller contact -> the POST /offer-requests body, validated against the spec.
// The deal's CRM id goes out as offer_request_external_id so offers and the active list lead back to it.
export function mapDealToOfferRequest(input: ListingDealInput): OfferRequestMapping {
  const property: Record<string, unknown> = {};
  const violations: FieldViolation[] = [];
  for (const field of Object.keys(input.mapping).sort()) {
    const source = input.mapping[field];
    const raw = readSource(input, source);
    if (raw === undefined) continue;
    const converted = convert(field, raw);
    if (converted.ok) property[field] = converted.value;
    else violations.push({ field: `property.${field}`, message: `property.${field} ${converted.problem}` });
  }
  const asking = typeof property.ListPrice === 'number' ? Math.round(property.ListPrice) : undefined;
  const body: CreateOfferRequestBody = {
    request: {
      offer_request_asking: asking as number,
      offer_request_external_id: input.deal.id,
    },
    property,
  };
  if (asking === undefined) delete (body.request as Partial<typeof body.request>).offer_request_asking;
  // A test record (the brokerage's testMode, or the deal's own checkbox): the request and its
  // property both say so, as the service marks test records.
  if (input.testMode === true || crmBoolean(crmString(input.deal.properties[DEAL.testRecord])) === true) {
    body.request.test = true;
    property.test = true;
  }
  const media = photoUrls(input.deal.properties[DEAL.photos]);
  if (media.length > 0) body.media = media;
  // However many photos the deal has: one call carries at most 50 (the service may take fewer), the
  // rest follow as media updates (create-with-photos.ts), so each group is checked as it will be sent.
  const schemaViolations = [
    ...validateWire(CreateOfferRequestBody, {
      ...body,
      ...(body.media ? { media: body.media.slice(0, MEDIA_MAX_ITEMS) } : {}),
    }),
    ...laterPhotoViolations(media),
  ].filter((v) => !violations.some((c) => c.field === v.field));
  return { body, violations: [...violations, ...schemaViolations].map((v) => explain(v, input.mapping)) };
}

// The photos past the first call's 50, checked in groups of 50 as media updates, each violation
// named by its place among all the deal's photos.
function laterPhotoViolations(media: string[]): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (let offset = MEDIA_MAX_ITEMS; offset < media.length; offset += MEDIA_MAX_ITEMS) {
    const group = media.slice(offset, offset + MEDIA_MAX_ITEMS);
    for (const v of validateWire(AddMediaBody, { offer_request_id: 1, media: group })) {
      const rename = (text: string) =>
        text.replace(/media\[(\d+)\]/g, (_m, i: string) => `media[${Number(i) + offset}]`);
      violations.push({ field: rename(v.field), message: rename(v.message) });
    }
  }
  return violations;
}

// The deal's photo links: one per line (commas and spaces also separate them).
export function photoUrls(value: string | null | undefined): string[] {
  return [...new Set((value ?? '').split(/[\s,]+/).filter((url) => url !== ''))];
}

function readSource(input: ListingDealInput, source: CrmFieldSource): string | undefined {
  const record = source.source === 'deal' ? input.deal : input.sellerContact;
  if (!record) return undefined;
  const parts = source.properties.map((p) => crmString(record.properties[p])).filter((v) => v !== undefined);
  return parts.length === 0 ? undefined : parts.join(' ');
}

type Converted = { ok: true; value: unknown } | { ok: false; problem: string };

// CRM text -> the spec's type. What cannot be read is reported, never guessed.
function convert(field: string, raw: string): Converted {
  const spec = PROPERTY_FIELDS[field];
  switch (spec?.type) {
    case 'number':
    case 'integer': {
      const value = Number(raw.replace(/[$,\s]/g, ''));
      return Number.isFinite(value)
        ? { ok: true, value }
        : { ok: false, problem: `must be a number; the CRM has "${raw}"` };
    }
    case 'boolean': {
      const value = crmBoolean(raw);
      return value === undefined
        ? { ok: false, problem: `must be yes or no; the CRM has "${raw}"` }
        : { ok: true, value };
    }
    case 'date':
      // The port hands dates over as ISO-8601 text; a date is its first ten characters.
      return { ok: true, value: raw.slice(0, 10) };
    case 'string-array':
      return {
        ok: true,
        value: raw
          .split(';')
          .map((v) => v.trim())
          .filter((v) => v !== ''),
      };
    case 'object':
      try {
        return { ok: true, value: JSON.parse(raw) as unknown };
      } catch {
        return { ok: false, problem: `must be a JSON object; the CRM has "${raw}"` };
      }
    default:
      return { ok: true, value: raw };
  }
}

// Adds where the agent fixes it: `property.StreetName is 57 characters; the service allows 50
// (deal property listing_street_name)`.
function explain(violation: FieldViolation, mapping: CrmFieldMapping): FieldViolation {
  if (violation.field.startsWith('media')) {
    return { field: violation.field, message: `${violation.message} (deal property ${DEAL.photos})` };
  }
  const where = whereAgentFixes(violation.field, mapping);
  if (!where) return violation;
  const message =
    violation.field === 'request.offer_request_asking'
      ? `${violation.message} (the asking price comes from the ${where})`
      : `${violation.message} (${where})`;
  return { field: violation.field, message };
}

// The CRM property the agent fills for a field of the create body (`property.StreetName`, or the
// asking price from ListPrice's): "deal property listing_street_name".
export function whereAgentFixes(field: string, mapping: CrmFieldMapping): string | undefined {
  const match = /^property\.([A-Za-z_]+)/.exec(field);
  const wire = match?.[1] ?? (field === 'request.offer_request_asking' ? 'ListPrice' : undefined);
  const source = wire ? mapping[wire] : undefined;
  if (!source) return undefined;
  const where = source.source === 'deal' ? 'deal property' : 'seller contact property';
  return `${where} ${source.properties.join(' + ')}`;
}
