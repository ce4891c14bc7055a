import type { PushToMarketplaceBody } from '../../cash-offer/schema';
import type { CrmProperties } from '../../crm/crm.types';
import { INVENTORY_ID, PUSH_EXPIRATION } from './push.constants';

export type PushMapping =
  { ok: true; body: PushToMarketplaceBody; expiration: string | null } | { ok: false; problems: string[] };

// A listing deal flagged for the marketplace -> the POST /push-to-marketplace body. The expiration is
// optional; CRMs store date-times as ISO text or epoch milliseconds, both are read.
export function toPushRequest(deal: { id: string; properties: CrmProperties }, now: Date): PushMapping {
  const problems: string[] = [];
  const rawId = deal.properties[INVENTORY_ID]?.trim();
  const propertyId = Number(rawId);
  if (!rawId)
    problems.push(
      `deal ${deal.id} has no Cash Offer inventory property id yet; request a cash offer on it before pushing it to the marketplace`,
    );
  else if (!Number.isInteger(propertyId) || propertyId < 1)
    problems.push(`deal ${deal.id}: inventory property id "${rawId}" is not a whole number`);
  const rawExpiration = deal.properties[PUSH_EXPIRATION]?.trim() || null;
  let expiration: string | null = null;
  if (rawExpiration !== null) {
    const ms = /^\d+$/.test(rawExpiration) ? Number(rawExpiration) : Date.parse(rawExpiration);
    if (!Number.isFinite(ms))
      problems.push(`deal ${deal.id}: marketplace expiration "${rawExpiration}" is not a date`);
    else if (ms <= now.getTime())
      problems.push(
        `deal ${deal.id}: marketplace expiration ${new Date(ms).toISOString()} is in the past; pick a later date or clear it`,
      );
    else expiration = new Date(ms).toISOString();
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    expiration,
    body: { request: { inventory_property_id: propertyId, expiration_date: expiration } },
  };
}
