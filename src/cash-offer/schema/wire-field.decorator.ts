import 'reflect-metadata';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Min,
  MaxLength,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';
import { isEmailAddress, isHttpUrl, isValidDate, isValidDateTime } from './wire-formats';
import { ITEM_SEPARATOR, PATH, WIRE_MESSAGES as M, itemPath } from './wire-messages';

// One field of the Cash Offer wire, said once: @WireField puts the class-validator rules (with
// messages naming the field) and this summary on the property; the OpenAPI schema (@ApiProperty) is
// put on it from the same summary when a document is built (wire.openapi.ts).
export type FieldType =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'date'
  | 'datetime'
  | 'string-array'
  | 'object'
  // Any JSON value the spec leaves unstructured (additional_terms, offer_feedback).
  | 'any'
  // A nested wire object, or a list of them (`nested` names the class).
  | 'nested'
  | 'nested-array'
  // A list of JSON objects whose structure the spec does not show (reno_items).
  | 'object-array'
  // Photo URLs (`media`).
  | 'url-array'
  | 'url'
  | 'email';

export interface FieldSpec {
  type: FieldType;
  // Required unless `requiredUnless` holds on the object; required fields refuse null and ''.
  required?: boolean;
  requiredUnless?: { test: (object: Record<string, unknown>) => boolean; message: string };
  nullable?: boolean;
  maxLength?: number;
  // Allowed values; for 'string-array' they constrain every item.
  enum?: readonly string[];
  min?: number;
  maxItems?: number;
  nested?: () => new () => object;
  description?: string;
  // The field's own words for a broken type or range rule (`{path} must be a whole, non-negative
  // number of dollars; got ...`), instead of the generic ones.
  problem?: (value: unknown) => string;
}

export type FieldTable = Readonly<Record<string, FieldSpec>>;

const FIELDS = Symbol('wire:fields');
const UNKNOWN_FIELD = Symbol('wire:unknown-field');

const present = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

const says = (f: (value: unknown) => string): ValidationOptions => ({
  message: (args: ValidationArguments) => f(args.value),
});

const ruleSaying = (
  name: string,
  test: (value: unknown, args: ValidationArguments) => boolean,
  message: (value: unknown) => string,
) => ValidateBy({ name, validator: { validate: test } }, says(message));

// Checks every item of a list and names each offending one.
function eachItem(
  name: string,
  problem: (item: unknown) => ((path: string) => string) | undefined,
): PropertyDecorator {
  const problems = (value: unknown): string[] =>
    Array.isArray(value)
      ? value.flatMap((item, i) => {
          const say = problem(item);
          return say ? [say(itemPath(i))] : [];
        })
      : [];
  return ruleSaying(
    name,
    (value) => problems(value).length === 0,
    (value) => problems(value).join(ITEM_SEPARATOR),
  );
}

// The rule each kind of text adds to "is text".
const TEXT_FORMATS: Partial<
  Record<FieldType, { name: string; test: (v: unknown) => boolean; message: (v: unknown) => string }>
> = {
  date: { name: 'isCalendarDate', test: (v) => isValidDate(v as string), message: M.date },
  datetime: { name: 'isZonedDateTime', test: (v) => isValidDateTime(v as string), message: M.dateTime },
  email: { name: 'isEmailAddress', test: (v) => isEmailAddress(v as string), message: M.email },
  url: { name: 'isHttpUrl', test: isHttpUrl, message: M.httpUrl },
};

function validators(spec: FieldSpec): PropertyDecorator[] {
  const list: PropertyDecorator[] = [];
  // A field with its own wording (`problem`) says it for every broken type or range rule.
  const say = (f: (value: unknown) => string): ValidationOptions => says(spec.problem ?? f);
  const rule = (
    name: string,
    test: (value: unknown, args: ValidationArguments) => boolean,
    message: (value: unknown) => string,
  ) => ruleSaying(name, test, spec.problem ?? message);
  switch (spec.type) {
    case 'string':
    case 'date':
    case 'datetime':
    case 'email':
    case 'url': {
      list.push(IsString(say(M.text)));
      const format = TEXT_FORMATS[spec.type];
      if (format) list.push(rule(format.name, format.test, format.message));
      if (spec.maxLength !== undefined) {
        const max = spec.maxLength;
        list.push(
          MaxLength(
            max,
            say((v) => M.maxLength(v, max)),
          ),
        );
      }
      if (spec.enum) {
        const allowed = spec.enum;
        list.push(
          IsIn(
            [...allowed],
            say((v) => M.oneOf(v, allowed)),
          ),
        );
      }
      break;
    }
    case 'number':
    case 'integer':
      list.push(IsNumber({ allowNaN: false, allowInfinity: false }, say(M.number)));
      if (spec.type === 'integer') list.push(IsInt(say(M.wholeNumber)));
      if (spec.min !== undefined) {
        const min = spec.min;
        list.push(
          Min(
            min,
            say((v) => M.atLeast(v, min)),
          ),
        );
      }
      break;
    case 'boolean':
      list.push(IsBoolean(say(M.boolean)));
      break;
    case 'object':
      list.push(IsObject(say(M.object)));
      break;
    case 'any':
      break;
    case 'nested':
      list.push(IsObject(say(M.object)), ValidateNested());
      break;
    case 'nested-array':
      list.push(
        IsArray(say(M.list)),
        eachItem('isObjectEach', (item) =>
          typeof item === 'object' && item !== null && !Array.isArray(item)
            ? undefined
            : (p) => `${p} must be an object`,
        ),
        ValidateNested({ each: true }),
      );
      break;
    case 'object-array':
      list.push(
        rule(
          'isObjectList',
          (v) => Array.isArray(v) && v.every((i) => typeof i === 'object' && i !== null && !Array.isArray(i)),
          M.objectList,
        ),
      );
      break;
    case 'string-array': {
      list.push(IsArray(say(M.textList)));
      const allowed = spec.enum;
      list.push(
        eachItem('isTextEach', (item) => {
          if (typeof item !== 'string') return (p) => M.text(item).replace(PATH, p);
          return allowed && !allowed.includes(item)
            ? (p) => M.oneOf(item, allowed).replace(PATH, p)
            : undefined;
        }),
      );
      break;
    }
    case 'url-array': {
      list.push(IsArray(say(M.photoList)));
      if (spec.maxItems !== undefined) {
        const max = spec.maxItems;
        list.push(
          ArrayMaxSize(
            max,
            say((v) => M.tooManyPhotos((v as unknown[]).length, max)),
          ),
        );
      }
      const maxLength = spec.maxLength;
      list.push(
        eachItem('isPhotoUrlEach', (item) => {
          if (!isHttpUrl(item)) return (p) => `${p} must be an http(s) URL of a photo`;
          const length = (item as string).length;
          return maxLength !== undefined && length > maxLength
            ? (p) => `${p} is ${length} characters; the service allows ${maxLength}`
            : undefined;
        }),
      );
      break;
    }
  }
  return list;
}

// Whether the field is checked at all, and the presence rules before the type rules. The rules
// run in this order and stop at the first broken one (validateWire uses stopAtFirstError).
function presence(spec: FieldSpec): PropertyDecorator[] {
  if (spec.required) return [ruleSaying('isPresent', present, M.required)];
  if (spec.requiredUnless) {
    const { test, message } = spec.requiredUnless;
    return [
      ValidateIf((o: Record<string, unknown>, v: unknown) => v !== undefined || !test(o)),
      ruleSaying(
        'isPresentUnless',
        (v, args) => present(v) || test(args.object as Record<string, unknown>),
        () => message,
      ),
    ];
  }
  if (spec.nullable) return [IsOptional()];
  return [
    ValidateIf((_o: object, v: unknown) => v !== undefined),
    ruleSaying('isNotNull', (v) => v !== null, M.notNull),
  ];
}

// Every field as it was declared, in order, for the OpenAPI document. @nestjs/swagger's metadata is
// applied only when the document is built: loading that package costs a quarter of a second of every
// process's start, and only the sandbox's document reads it.
const declared: { target: object; key: string | symbol; spec: FieldSpec }[] = [];

export function declaredWireFields(): readonly { target: object; key: string | symbol; spec: FieldSpec }[] {
  return declared;
}

// Read through the prototype chain: a subclass sees its parent's fields.
function fieldMetadata(dto: object): Record<string, FieldSpec> {
  return (Reflect.getMetadata(FIELDS, dto) as Record<string, FieldSpec> | undefined) ?? {};
}

export function WireField(spec: FieldSpec): PropertyDecorator {
  return (target: object, key: string | symbol) => {
    const own: Record<string, FieldSpec> = { ...fieldMetadata(target.constructor) };
    own[String(key)] = spec;
    Reflect.defineMetadata(FIELDS, own, target.constructor);
    for (const decorate of [...presence(spec), ...validators(spec)]) decorate(target, key);
    declared.push({ target, key, spec });
  };
}

// A field the body may not carry (refused with the message, which names the field as `{path}`).
export function WireRefused(message: string): PropertyDecorator {
  return (target: object, key: string | symbol) => {
    ValidateIf((_o: object, v: unknown) => v !== undefined)(target, key);
    ruleSaying(
      'isRefused',
      () => false,
      () => message,
    )(target, key);
  };
}

// How an unknown field of this object is refused: `{path} is not a property field the service knows`.
export function WireObject(unknownField: string): ClassDecorator {
  return (target) => Reflect.defineMetadata(UNKNOWN_FIELD, unknownField, target);
}

export function unknownFieldMessage(target: object | undefined): string {
  const phrase: unknown = target ? Reflect.getMetadata(UNKNOWN_FIELD, target.constructor) : undefined;
  return `${PATH} ${typeof phrase === 'string' ? phrase : 'is not a field the service knows'}`;
}

// The fields of a wire class with their rules (inherited ones included), for mappers and setup-crm.
export function fieldsOf(dto: abstract new () => object): FieldTable {
  return Object.freeze({ ...fieldMetadata(dto) });
}

// A wire class made of some fields of another, with the same rules (changes in `overrides`): the
// prelim inventory and the updatable property are subsets of the property, not copies of it.
export function pickFields<T extends object, K extends keyof T & string>(
  source: new () => T,
  names: readonly K[],
  overrides: Partial<Record<K, Partial<FieldSpec>>> = {},
): new () => Pick<T, K> {
  const fields = fieldsOf(source);
  class Picked {}
  for (const name of names) {
    const spec = fields[name];
    if (!spec) throw new Error(`${source.name} has no wire field ${name}`);
    WireField({ ...spec, ...overrides[name] })(Picked.prototype, name);
  }
  return Picked as new () => Pick<T, K>;
}
