import type { WriteSource } from './emulator.types';

// Who wrote a value, as HubSpot's property history names it (`sourceType`, `sourceId`,
// `updatedByUserId`, the SDK's ValueWithTimestamp).

// The emulated private app's writes. HubSpot's published examples show API writes as
// `{"sourceId":"5670736","sourceType":"INTEGRATION",...}`; what that number is (the app's id or
// another) is not documented in what we read, so it is a number of its own here, not the token
// info's appId: nothing should come to rely on the two being equal.
export const EMULATOR_INTEGRATION_ID = '2960471';
export const API_SOURCE: WriteSource = { sourceType: 'INTEGRATION', sourceId: EMULATOR_INTEGRATION_ID };

// Records made with /__control/seed stand for data that was already in the portal: an import.
export const IMPORT_SOURCE: WriteSource = { sourceType: 'IMPORT' };

// A person in HubSpot's UI. Since the changelog "CRM property change source will show user ID
// instead of owner email" (developers.hubspot.com/changelog/crm-property-change-source-will-show-owner-id-instead-of-owner-email),
// a change made in the app has sourceId `userId:<id>`.
export function uiSource(userId: number): WriteSource {
  return { sourceType: 'CRM_UI', sourceId: `userId:${userId}`, updatedByUserId: userId };
}
