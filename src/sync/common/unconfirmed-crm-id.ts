// The CRM id a link holds from just before its record's first write until that write's answer
// (a marketplace listing's link, an offer's placeholder): the record, if the write landed, is found
// by its remote key, never by this id.
const UNCONFIRMED = 'unconfirmed:';
export const unconfirmedCrmId = (remoteKey: string): string => `${UNCONFIRMED}${remoteKey}`;
export const isUnconfirmedCrmId = (crmId: string): boolean => crmId.startsWith(UNCONFIRMED);
