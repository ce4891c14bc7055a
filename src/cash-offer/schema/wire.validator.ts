import { validateSync, type ValidationError } from 'class-validator';
import { fieldsOf, unknownFieldMessage } from './wire-field.decorator';
import { ITEM_SEPARATOR, PARENT, PATH } from './wire-messages';

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

export interface WireCheck {
  // Broken rules of known fields, and missing required ones.
  violations: FieldViolation[];
  // Fields the wire class does not know.
  unknown: FieldViolation[];
}

const WHITELIST = 'whitelistValidation';

// Checks a JSON value against a wire class (class-validator, every rule, the first broken one per
// field) and names every problem by its path under `prefix`. Unknown fields are reported apart:
// a request we send or receive refuses them, an answer or an event only flags them.
export function checkWire(dto: new () => object, body: unknown, prefix = ''): WireCheck {
  const where = prefix || 'body';
  if (!isPlainObject(body))
    return {
      violations: [{ field: where, message: `${prefix ? `${prefix} ` : 'the body '}must be a JSON object` }],
      unknown: [],
    };
  const hidden: FieldViolation[] = [];
  const instance = asInstance(dto, body, prefix, hidden);
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    stopAtFirstError: true,
    validationError: { target: true, value: true },
  });
  const check: WireCheck = { violations: [], unknown: [] };
  collect(errors, prefix, body, check);
  check.unknown.push(...hidden);
  return check;
}

// The body as an instance of its wire class, for class-validator. Only nested wire objects become
// instances (of the class their field names); every other value is shared, not copied:
// plainToInstance deep-copied a hostile 250 KB array of an unknown field, blocking the event loop
// for more than a second per webhook delivery, though only the field's name is ever reported.
// A `constructor` key would hide the wire class class-validator finds the rules by
// (`object.constructor`), and the whole object was refused as "an unknown value" naming no field: it
// is kept off the instance and named as a field the class does not know (`hidden`).
function asInstance(dto: new () => object, body: JsonObject, path: string, hidden: FieldViolation[]): object {
  const fields = fieldsOf(dto);
  const instance = new dto();
  for (const [key, value] of Object.entries(body)) {
    if (key === 'constructor') {
      const field = childPath(path, key);
      hidden.push({ field, message: unknownFieldMessage(instance).replace(PATH, field) });
      continue;
    }
    const nested = fields[key]?.nested;
    // defineProperty, not assignment: a `__proto__` key in a body stays a plain (unknown) field.
    Object.defineProperty(instance, key, {
      value: nested ? asNested(nested(), value, childPath(path, key), hidden) : value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return instance;
}

function asNested(dto: new () => object, value: unknown, path: string, hidden: FieldViolation[]): unknown {
  if (Array.isArray(value))
    return value.map((item, i) => asNested(dto, item, childPath(path, String(i)), hidden));
  return isPlainObject(value) ? asInstance(dto, value, path, hidden) : value;
}

// The usual verdict for a body we send or a request the sandbox receives: every problem at once.
export function validateWire(dto: new () => object, body: unknown, prefix = ''): FieldViolation[] {
  const { violations, unknown } = checkWire(dto, body, prefix);
  return [...violations, ...unknown];
}

export function formatViolations(violations: readonly FieldViolation[]): string {
  return violations.map((v) => v.message).join('; ');
}

function childPath(parent: string, property: string): string {
  if (/^\d+$/.test(property)) return `${parent}[${property}]`;
  return parent ? `${parent}.${property}` : property;
}

// Problems in the order of the body: missing fields first (in the class's order), then the fields
// as the body gives them, so a message lists them as the sender wrote them.
function inBodyOrder(errors: readonly ValidationError[], plain: unknown): ValidationError[] {
  const keys = isPlainObject(plain) || Array.isArray(plain) ? Object.keys(plain) : [];
  return [...errors].sort((a, b) => keys.indexOf(a.property) - keys.indexOf(b.property));
}

function collect(errors: readonly ValidationError[], parent: string, plain: unknown, into: WireCheck): void {
  for (const error of inBodyOrder(errors, plain)) {
    const path = childPath(parent, error.property);
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      if (constraint === WHITELIST) {
        into.unknown.push({ field: path, message: unknownFieldMessage(error.target).replace(PATH, path) });
        continue;
      }
      // Item messages name their item (`{path}[1] ...`), one per line.
      for (const line of message.split(ITEM_SEPARATOR)) {
        const text = line
          .split(PATH)
          .join(path)
          .split(PARENT)
          .join(parent ? `${parent}.` : '');
        const field = line.startsWith(`${PATH}[`) ? text.slice(0, text.indexOf(' ')) : path;
        into.violations.push({ field, message: text });
      }
    }
    if (error.children?.length)
      collect(error.children, path, (plain as Record<string, unknown> | undefined)?.[error.property], into);
  }
}
