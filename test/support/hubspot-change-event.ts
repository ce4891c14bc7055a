// One HubSpot change event as HubSpot's webhooks deliver it (a batch is an array of these): a deal's
// stage changed in the CRM, in the shape of HubSpot's published webhook payloads (crm-apis.md).
export function hubSpotChangeEvent(
  eventId: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    eventId,
    subscriptionId: 1,
    portalId: 12345678,
    appId: 1,
    occurredAt: Date.now(),
    subscriptionType: 'object.propertyChange',
    objectTypeId: '0-3',
    attemptNumber: 0,
    objectId: 10001,
    propertyName: 'dealstage',
    propertyValue: 'qualifiedtobuy',
    changeSource: 'CRM',
    ...extra,
  };
}
