export * from './hubspot-crm.adapter';
export * from './hubspot.options';
export * from './hubspot-default-mapping';
export * from './hubspot-vendor.profile';
export { toCrmError } from './hubspot-error.mapper';
export { REQUIRED_HUBSPOT_SCOPES } from './hubspot-access.checker';
export * from './hubspot-webhook';
export { HubSpotPortalLimiters } from './hubspot-portal-limiters';
