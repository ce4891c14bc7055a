export * from './crm.types';
export * from './crm.error';
export * from './crm.port';
export * from './crm-schema.types';
export * from './crm-schema';
export * from './crm-stage-map';
