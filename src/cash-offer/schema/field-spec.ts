// The spec's field rules as data, so the sandbox and the daemon's client validate with one source.
export type FieldType =
  'string' | 'number' | 'integer' | 'boolean' | 'date' | 'datetime' | 'string-array' | 'object';

export interface FieldSpec {
  type: FieldType;
  maxLength?: number;
  // Allowed values; for 'string-array' they constrain every item (array of enum).
  enum?: readonly string[];
  nullable?: boolean;
  // Numbers the service can only accept at or above this value (amounts, counts).
  min?: number;
}

export type FieldTable = Readonly<Record<string, FieldSpec>>;
