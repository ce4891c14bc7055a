// A link to a record in the CRM's own app, when the brokerage says where its records open
// (`crm.recordUrl`) and the record is one the CRM knows by that id (a deal; offers and marketplace
// rows are recorded under the service's ids).
export function crmRecordLink(recordUrl: string | undefined, kind: string, ref: string): string | undefined {
  if (!recordUrl || kind !== 'deal' || !/^[\w-]+$/.test(ref)) return undefined;
  return recordUrl.replace('{id}', encodeURIComponent(ref));
}
