import { FieldSpec, FieldTable } from './field-spec';

// One broken rule, named by its path in the body (`property.StreetName`) and said in words an
// agent understands.
export interface FieldViolation {
  field: string;
  message: string;
}

export type JsonObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// Date-times must carry a zone (Z or an offset), as the spec's timestamps do.
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return JSON.stringify(value) ?? 'nothing';
}

export function isValidDate(value: string): boolean {
  const m = ISO_DATE.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return (
    d.getUTCFullYear() === Number(m[1]) &&
    d.getUTCMonth() === Number(m[2]) - 1 &&
    d.getUTCDate() === Number(m[3])
  );
}

export function isValidDateTime(value: string): boolean {
  return ISO_DATETIME.test(value) && !Number.isNaN(Date.parse(value));
}

function enumMessage(path: string, value: unknown, allowed: readonly string[]): string {
  return `${path} is ${describe(value)}; allowed values are ${allowed.join(', ')}`;
}

// Checks one value against its spec; `null` is only allowed where the spec says nullable.
export function validateValue(path: string, value: unknown, spec: FieldSpec): FieldViolation[] {
  const fail = (message: string): FieldViolation[] => [{ field: path, message }];
  if (value === null) return spec.nullable ? [] : fail(`${path} must not be null`);
  switch (spec.type) {
    case 'string':
    case 'date':
    case 'datetime': {
      if (typeof value !== 'string') return fail(`${path} must be text; got ${describe(value)}`);
      if (spec.type === 'date' && !isValidDate(value))
        return fail(`${path} must be a date written YYYY-MM-DD; got ${describe(value)}`);
      if (spec.type === 'datetime' && !isValidDateTime(value))
        return fail(`${path} must be a date-time with a time zone (ISO 8601); got ${describe(value)}`);
      if (spec.maxLength !== undefined && value.length > spec.maxLength)
        return fail(`${path} is ${value.length} characters; the service allows ${spec.maxLength}`);
      if (spec.enum && !spec.enum.includes(value)) return fail(enumMessage(path, value, spec.enum));
      return [];
    }
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value))
        return fail(`${path} must be a number; got ${describe(value)}`);
      if (spec.type === 'integer' && !Number.isInteger(value))
        return fail(`${path} must be a whole number; got ${value}`);
      if (spec.min !== undefined && value < spec.min)
        return fail(`${path} must be at least ${spec.min}; got ${value}`);
      return [];
    }
    case 'boolean':
      return typeof value === 'boolean' ? [] : fail(`${path} must be true or false; got ${describe(value)}`);
    case 'object':
      return isPlainObject(value) ? [] : fail(`${path} must be an object; got ${describe(value)}`);
    case 'string-array': {
      if (!Array.isArray(value)) return fail(`${path} must be a list of text values; got ${describe(value)}`);
      const violations: FieldViolation[] = [];
      value.forEach((item, i) => {
        const itemPath = `${path}[${i}]`;
        if (typeof item !== 'string')
          violations.push({ field: itemPath, message: `${itemPath} must be text; got ${describe(item)}` });
        else if (spec.enum && !spec.enum.includes(item))
          violations.push({ field: itemPath, message: enumMessage(itemPath, item, spec.enum) });
      });
      return violations;
    }
  }
}

export interface ValidateFieldsOptions {
  // Names the object in messages about unknown fields ("a property field").
  what: string;
  rejectUnknown?: boolean;
  required?: readonly string[];
}

// Checks every field of an object against a table; reports every problem, not just the first.
export function validateFields(
  prefix: string,
  obj: JsonObject,
  table: FieldTable,
  options: ValidateFieldsOptions,
): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (const name of options.required ?? []) {
    if (obj[name] === undefined || obj[name] === null || obj[name] === '')
      violations.push({ field: `${prefix}.${name}`, message: `${prefix}.${name} is required` });
  }
  for (const [name, value] of Object.entries(obj)) {
    const path = `${prefix}.${name}`;
    const spec = table[name];
    if (!spec) {
      if (options.rejectUnknown)
        violations.push({ field: path, message: `${path} is not ${options.what} the service knows` });
      continue;
    }
    if (value === undefined) continue;
    if (violations.some((v) => v.field === path)) continue;
    violations.push(...validateValue(path, value, spec));
  }
  return violations;
}

export function formatViolations(violations: readonly FieldViolation[]): string {
  return violations.map((v) => v.message).join('; ');
}
