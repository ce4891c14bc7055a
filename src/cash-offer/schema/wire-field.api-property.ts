import type { FieldSpec } from './wire-field.decorator';

// @nestjs/swagger resolves a class lazily only from a function named `type`.
function lazyType(nested: () => new () => object): () => new () => object {
  const type = (): new () => object => nested();
  return type;
}

// The OpenAPI schema of the field (the options of @ApiProperty); `required` lands in the object's list.
export function apiProperty(spec: FieldSpec): Record<string, unknown> {
  const base = {
    required: spec.required === true,
    ...(spec.nullable ? { nullable: true } : {}),
    ...(spec.description ? { description: spec.description } : {}),
  };
  switch (spec.type) {
    case 'string':
    case 'email':
      return {
        ...base,
        type: 'string',
        ...(spec.maxLength !== undefined ? { maxLength: spec.maxLength } : {}),
        ...(spec.enum ? { enum: [...spec.enum] } : {}),
      };
    case 'date':
      return { ...base, type: 'string', format: 'date' };
    case 'datetime':
      return { ...base, type: 'string', format: 'date-time' };
    case 'url':
      return {
        ...base,
        type: 'string',
        format: 'uri',
        ...(spec.maxLength !== undefined ? { maxLength: spec.maxLength } : {}),
      };
    case 'number':
    case 'integer':
      return { ...base, type: spec.type, ...(spec.min !== undefined ? { minimum: spec.min } : {}) };
    case 'boolean':
      return { ...base, type: 'boolean' };
    case 'object':
      return { ...base, type: 'object', additionalProperties: true };
    case 'any':
      // Structure not shown by the spec: documented as a free-form object, kept as sent.
      return { ...base, type: 'object', additionalProperties: true };
    case 'nested':
      return { ...base, type: lazyType(spec.nested!) };
    case 'nested-array':
      return { ...base, type: lazyType(spec.nested!), isArray: true };
    case 'object-array':
      return { ...base, type: 'object', isArray: true, additionalProperties: true };
    case 'string-array':
      return spec.enum
        ? { ...base, type: 'string', isArray: true, enum: [...spec.enum] }
        : { ...base, type: 'string', isArray: true };
    case 'url-array':
      return {
        ...base,
        type: 'string',
        isArray: true,
        ...(spec.maxItems !== undefined ? { maxItems: spec.maxItems } : {}),
      };
  }
}
