import { FieldViolation, JsonObject, isPlainObject, validateFields, validateValue } from './field-validator';
import {
  CREATE_ALWAYS_REQUIRED,
  CREATE_STREET_FIELDS,
  CREATE_UNPARSED_FIELDS,
  PRELIM_INVENTORY_FIELDS,
  PROPERTY_FIELDS,
  UPDATABLE_PROPERTY_FIELDS,
} from './property.schema';
import {
  BUYER_LEAD_FIELDS,
  BUYER_LEAD_PROPERTY_ADDRESS_FIELDS,
  BUYER_LEAD_REQUIRED,
  COUNTER_OFFER_FIELDS,
  COUNTER_OFFER_REQUIRED,
  MEDIA_MAX_ITEMS,
  MEDIA_URL_MAX_LENGTH,
  OFFER_DECISION_FIELDS,
  PUSH_TO_MARKETPLACE_REQUEST_FIELDS,
  REQUEST_FIELDS,
  WEBHOOK_CONFIG_FIELDS,
} from './resource.schema';

// Validators for every request body of the spec. Each returns every violation it finds;
// an empty list means the body is acceptable.

const present = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

function requireObject(path: string, value: unknown): FieldViolation[] {
  if (value === undefined) return [{ field: path, message: `${path} is required` }];
  return isPlainObject(value) ? [] : [{ field: path, message: `${path} must be an object` }];
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export function validateMedia(path: string, media: unknown): FieldViolation[] {
  if (media === undefined || media === null) return [];
  if (!Array.isArray(media)) return [{ field: path, message: `${path} must be a list of photo URLs` }];
  const violations: FieldViolation[] = [];
  if (media.length > MEDIA_MAX_ITEMS)
    violations.push({
      field: path,
      message: `${path} has ${media.length} photos; the service allows ${MEDIA_MAX_ITEMS}`,
    });
  media.forEach((item, i) => {
    const itemPath = `${path}[${i}]`;
    if (typeof item !== 'string' || !isHttpUrl(item))
      violations.push({ field: itemPath, message: `${itemPath} must be an http(s) URL of a photo` });
    else if (item.length > MEDIA_URL_MAX_LENGTH)
      violations.push({
        field: itemPath,
        message: `${itemPath} is ${item.length} characters; the service allows ${MEDIA_URL_MAX_LENGTH}`,
      });
  });
  return violations;
}

// The property of a new offer request: the six stored-shape fields, where UnparsedAddress + City
// may stand in for StreetNumber, StreetName and PostalCity.
export function validateCreateProperty(property: JsonObject, prefix = 'property'): FieldViolation[] {
  const violations = validateFields(prefix, property, PROPERTY_FIELDS, {
    what: 'a property field',
    rejectUnknown: true,
    required: CREATE_ALWAYS_REQUIRED,
  });
  const hasUnparsed = CREATE_UNPARSED_FIELDS.every((f) => present(property[f]));
  if (!hasUnparsed) {
    const missing = CREATE_STREET_FIELDS.filter((f) => !present(property[f]));
    for (const f of missing) {
      violations.push({
        field: `${prefix}.${f}`,
        message: `${prefix}.${f} is required (or give ${prefix}.UnparsedAddress and ${prefix}.City instead of the street fields)`,
      });
    }
  }
  return violations;
}

export function validateRequestObject(request: JsonObject, prefix = 'request'): FieldViolation[] {
  return validateFields(prefix, request, REQUEST_FIELDS, {
    what: 'a request field',
    rejectUnknown: true,
    required: ['offer_request_asking'],
  });
}

export function validateCreateOfferRequest(body: unknown): FieldViolation[] {
  if (!isPlainObject(body)) return [{ field: 'body', message: 'the body must be a JSON object' }];
  const violations: FieldViolation[] = [];
  violations.push(...requireObject('request', body.request));
  if (isPlainObject(body.request)) violations.push(...validateRequestObject(body.request));
  violations.push(...requireObject('property', body.property));
  if (isPlainObject(body.property)) violations.push(...validateCreateProperty(body.property));
  violations.push(...validateMedia('media', body.media));
  if (body.assumptions !== undefined && !Array.isArray(body.assumptions))
    violations.push({ field: 'assumptions', message: 'assumptions must be a list' });
  for (const key of Object.keys(body)) {
    if (!['request', 'property', 'media', 'assumptions'].includes(key))
      violations.push({ field: key, message: `${key} is not part of an offer request body` });
  }
  return violations;
}

// PATCH /offer-requests/{id}: only the listing-agent fields and media may change after submission.
export function validateUpdateOfferRequest(body: unknown): FieldViolation[] {
  if (!isPlainObject(body)) return [{ field: 'body', message: 'the body must be a JSON object' }];
  const violations: FieldViolation[] = [];
  const updatable: readonly string[] = UPDATABLE_PROPERTY_FIELDS;
  if (body.property !== undefined) {
    if (!isPlainObject(body.property))
      violations.push({ field: 'property', message: 'property must be an object' });
    else {
      for (const [name, value] of Object.entries(body.property)) {
        const path = `property.${name}`;
        if (!updatable.includes(name)) {
          violations.push({
            field: path,
            message: `${path} cannot be changed after submission; the service updates only ${updatable.join(', ')} and media`,
          });
        } else violations.push(...validateValue(path, value, PROPERTY_FIELDS[name]));
      }
    }
  }
  for (const key of ['request', 'assumptions']) {
    if (body[key] !== undefined)
      violations.push({
        field: key,
        message: `${key} cannot be changed after submission; the service updates only the listing-agent fields and media`,
      });
  }
  violations.push(...validateMedia('media', body.media));
  for (const key of Object.keys(body)) {
    if (!['request', 'property', 'media', 'assumptions', 'offer_request_id'].includes(key))
      violations.push({ field: key, message: `${key} is not part of an offer request update` });
  }
  return violations;
}

// The body form, PATCH /offer-requests/: { offer_request_id, media }.
export function validateAddMedia(body: unknown): FieldViolation[] {
  if (!isPlainObject(body)) return [{ field: 'body', message: 'the body must be a JSON object' }];
  const violations = validateValue('offer_request_id', body.offer_request_id ?? null, {
    type: 'integer',
    min: 1,
  });
  if (body.offer_request_id === undefined)
    return [
      { field: 'offer_request_id', message: 'offer_request_id is required' },
      ...validateMedia('media', body.media),
    ];
  if (body.media === undefined) violations.push({ field: 'media', message: 'media is required' });
  return [...violations, ...validateMedia('media', body.media)];
}

export function validatePrelim(body: unknown): FieldViolation[] {
  if (!isPlainObject(body)) return [{ field: 'body', message: 'the body must be a JSON object' }];
  const violations = requireObject('inventory', body.inventory);
  if (!isPlainObject(body.inventory)) return violations;
  const allowed: readonly string[] = PRELIM_INVENTORY_FIELDS;
  const table = Object.fromEntries(allowed.map((f) => [f, PROPERTY_FIELDS[f]]));
  return validateFields('inventory', body.inventory, table, {
    what: 'an inventory field of a prelim request',
    rejectUnknown: true,
    required: ['StateOrProvince', 'PostalCode'],
  });
}

export function validateOfferDecision(body: unknown): FieldViolation[] {
  if (!isPlainObject(body)) return [{ field: 'body', message: 'the body must be a JSON object' }];
  return validateFields('body', body, OFFER_DECISION_FIELDS, {
    what: 'a field of an offer decision',
    rejectUnknown: true,
    required: ['offer_id', 'offer_status'],
  }).map(stripBodyPrefix);
}

export function validateCounterOffer(body: unknown): FieldViolation[] {
  if (!isPlainObject(body)) return [{ field: 'body', message: 'the body must be a JSON object' }];
  return validateFields('body', body, COUNTER_OFFER_FIELDS, {
    what: 'a counter offer field',
    rejectUnknown: true,
    required: COUNTER_OFFER_REQUIRED,
  }).map(stripBodyPrefix);
}

export function validateBuyerLead(body: unknown): FieldViolation[] {
  if (!isPlainObject(body)) return [{ field: 'body', message: 'the body must be a JSON object' }];
  const violations = validateFields('body', body, BUYER_LEAD_FIELDS, {
    what: 'a buyer lead field',
    rejectUnknown: true,
    required: BUYER_LEAD_REQUIRED,
  }).map(stripBodyPrefix);
  if (!present(body.primary_email) && !present(body.primary_phone))
    violations.push({ field: 'primary_email', message: 'primary_email or primary_phone is required' });
  if (
    typeof body.primary_email === 'string' &&
    body.primary_email &&
    !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(body.primary_email)
  )
    violations.push({
      field: 'primary_email',
      message: `primary_email "${body.primary_email}" is not an email address`,
    });
  if (isPlainObject(body.property_address)) {
    violations.push(
      ...validateFields('property_address', body.property_address, BUYER_LEAD_PROPERTY_ADDRESS_FIELDS, {
        what: 'a property_address field',
        rejectUnknown: true,
        required: ['offer_request_id'],
      }),
    );
  }
  return violations;
}

export function validatePushToMarketplace(body: unknown): FieldViolation[] {
  if (!isPlainObject(body)) return [{ field: 'body', message: 'the body must be a JSON object' }];
  const violations = requireObject('request', body.request);
  if (!isPlainObject(body.request)) return violations;
  return validateFields('request', body.request, PUSH_TO_MARKETPLACE_REQUEST_FIELDS, {
    what: 'a push-to-marketplace field',
    rejectUnknown: true,
    required: ['inventory_property_id'],
  });
}

export function validateWebhookConfig(body: unknown): FieldViolation[] {
  if (!isPlainObject(body)) return [{ field: 'body', message: 'the body must be a JSON object' }];
  const violations = validateFields('body', body, WEBHOOK_CONFIG_FIELDS, {
    what: 'a webhook configuration field',
    rejectUnknown: true,
    required: ['url'],
  }).map(stripBodyPrefix);
  if (violations.length === 0 && !isHttpUrl(body.url as string))
    violations.push({ field: 'url', message: `url "${String(body.url)}" must be an absolute http(s) URL` });
  return violations;
}

function stripBodyPrefix(v: FieldViolation): FieldViolation {
  return { field: v.field.replace(/^body\./, ''), message: v.message.replace(/^body\./, '') };
}
