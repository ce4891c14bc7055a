// The words of every wire validation message. `{path}` stands for the field's path in the body
// (`property.StreetName`), filled in when the violations are collected (wire.validator.ts): a
// class-validator message only knows the property's own name.
export const PATH = '{path}';
// The path of the object holding the field, with its dot (`property.`), or nothing at the top.
export const PARENT = '{parent.}';

// A value as an agent would read it in a message.
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  // JSON.stringify says null for Infinity and NaN.
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value) ?? 'nothing';
}

export const WIRE_MESSAGES = {
  required: () => `${PATH} is required`,
  notNull: () => `${PATH} must not be null`,
  text: (v: unknown) => `${PATH} must be text; got ${describe(v)}`,
  date: (v: unknown) => `${PATH} must be a date written YYYY-MM-DD; got ${describe(v)}`,
  dateTime: (v: unknown) => `${PATH} must be a date-time with a time zone (ISO 8601); got ${describe(v)}`,
  maxLength: (v: unknown, max: number) =>
    `${PATH} is ${(v as string).length} characters; the service allows ${max}`,
  oneOf: (v: unknown, allowed: readonly string[]) =>
    `${PATH} is ${describe(v)}; allowed values are ${allowed.join(', ')}`,
  number: (v: unknown) => `${PATH} must be a number; got ${describe(v)}`,
  wholeNumber: (v: unknown) => `${PATH} must be a whole number; got ${String(v)}`,
  atLeast: (v: unknown, min: number) => `${PATH} must be at least ${min}; got ${String(v)}`,
  boolean: (v: unknown) => `${PATH} must be true or false; got ${describe(v)}`,
  object: (v: unknown) => `${PATH} must be an object; got ${describe(v)}`,
  textList: (v: unknown) => `${PATH} must be a list of text values; got ${describe(v)}`,
  list: () => `${PATH} must be a list`,
  objectList: () => `${PATH} must be a list of objects`,
  photoList: () => `${PATH} must be a list of photo URLs`,
  tooManyPhotos: (count: number, max: number) => `${PATH} has ${count} photos; the service allows ${max}`,
  httpUrl: (v: unknown) => `${PATH} "${String(v)}" must be an absolute http(s) URL`,
  email: (v: unknown) => `${PATH} "${String(v)}" is not an email address`,
} as const;

// Messages about the items of a list name each item (`property.Sewer[1]`); they are joined by a
// newline and split again into one violation per item when collected.
export const ITEM_SEPARATOR = '\n';
export const itemPath = (index: number): string => `${PATH}[${index}]`;
