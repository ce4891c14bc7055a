import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { mappedProperties } from '../../crm/mapping/crm-field-mapping';
import type { CrmRecord } from '../../crm';

// The contact a listing deal names as its seller: the first associated contact.
export function sellerContactId(deal: CrmRecord): string | undefined {
  return deal.associations?.contact?.[0];
}

// The seller contacts of a page of listing deals, in one batch read, by contact id.
export async function fetchSellerContacts(
  crm: BrokerageCrm,
  deals: CrmRecord[],
): Promise<Map<string, CrmRecord>> {
  const ids = [...new Set(deals.map(sellerContactId).filter((id): id is string => !!id))];
  if (ids.length === 0) return new Map();
  const records = await crm.port.getRecords('contact', ids, mappedProperties(crm.mapping, 'seller_contact'));
  return new Map(records.map((r) => [r.id, r]));
}
