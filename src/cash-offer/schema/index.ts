export * from './field-spec';
export * from './field-validator';
export * from './property.schema';
export * from './resource.schema';
export * from './request-validators';
export * from './wire.types';
