export * from './followupboss-crm.adapter';
export * from './followupboss.options';
export * from './followupboss-default-mapping';
export * from './followupboss-vendor.profile';
export { toCrmError } from './followupboss-error.mapper';
export * from './followupboss-webhook';
