import type { LinkRepository } from '../../ledger';
import { LINK } from '../common/listing-deal.properties';

export interface NamedRecord {
  brokerageId: string;
  // As the decision history names it: `deal:<id>`, `request:<id>` or `offer:<id>`.
  record: string;
}

// The link kinds that join a service record to the CRM deal that shows it, by the history's prefix.
const DEAL_OF = { request: LINK.offerRequest, offer: LINK.offer } as const;

// A record's life is kept under the name each writer knew it by: a listing deal's create and
// write-backs under deal:<id>, its request's events and statuses under request:<id>; an offer under
// offer:<id>, though record errors, the status page and agents name it by its CRM deal. The other
// names of the same record, per brokerage (two brokerages' services may use the same ids), from the
// ledger's links.
export async function otherNamesOf(
  links: LinkRepository,
  record: string,
  brokerageId?: string,
): Promise<NamedRecord[]> {
  const colon = record.indexOf(':');
  const [prefix, id] = [record.slice(0, colon), record.slice(colon + 1)];
  if (prefix === 'deal') {
    const found = await Promise.all(
      Object.entries(DEAL_OF).map(async ([named, kind]) =>
        (await links.findInAny(kind, { crmId: id }, brokerageId)).map((link) => ({
          brokerageId: link.brokerageId,
          record: `${named}:${link.remoteId}`,
        })),
      ),
    );
    return found.flat();
  }
  if (prefix !== 'request' && prefix !== 'offer') return [];
  return (await links.findInAny(DEAL_OF[prefix], { remoteId: id }, brokerageId)).map((link) => ({
    brokerageId: link.brokerageId,
    record: `deal:${link.crmId}`,
  }));
}
