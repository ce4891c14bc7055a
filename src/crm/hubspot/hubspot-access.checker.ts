import type { Client } from '@hubspot/api-client';
import { CrmError } from '../crm.error';
import type { CrmAccessReport } from '../crm.port';
import type { HubSpotRequestRunner } from './hubspot-request.runner';

// The private-app scopes the flows and setup-crm use: deals (listings, offers, the marketplace),
// contacts (sellers, buyers) and their property schemas. Tasks need no scope of their own: HubSpot's
// tasks guide (https://developers.hubspot.com/docs/api/crm/tasks) asks for the contacts ones.
export const REQUIRED_HUBSPOT_SCOPES: readonly string[] = [
  'crm.objects.deals.read',
  'crm.objects.deals.write',
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.schemas.deals.read',
  'crm.schemas.deals.write',
  'crm.schemas.contacts.read',
  'crm.schemas.contacts.write',
];

// HubSpot tells a private app its token's scopes (POST /oauth/v2/private-apps/get/access-token-info,
// HubSpot's private-apps docs), so a missing scope is named before any flow trips on a 403.
export class HubSpotAccessChecker {
  constructor(
    private readonly client: Client,
    private readonly runner: HubSpotRequestRunner,
    private readonly accessToken: string,
  ) {}

  async check(): Promise<CrmAccessReport> {
    const response = await this.runner.run(
      { what: 'read the private-app token scopes', lane: 'general', idempotent: true },
      () =>
        this.client.apiRequest({
          method: 'POST',
          path: '/oauth/v2/private-apps/get/access-token-info',
          body: { tokenKey: this.accessToken },
        }),
    );
    if (response.status === 401) {
      return { checked: true, missing: [], problem: 'HubSpot refused the token (401)' };
    }
    if (!response.ok) {
      // OAuth tokens (not private-app ones) have no such answer: the scopes cannot be listed.
      return {
        checked: false,
        missing: [],
        problem: `HubSpot did not list the token's scopes (${response.status})`,
      };
    }
    const body = (await response.json()) as { scopes?: unknown };
    const granted = new Set(Array.isArray(body.scopes) ? body.scopes.map(String) : []);
    return { checked: true, missing: REQUIRED_HUBSPOT_SCOPES.filter((s) => !granted.has(s)) };
  }
}

export function missingScopesError(missing: string[]): CrmError {
  return new CrmError(
    'AUTH_FAILED',
    `the HubSpot private app lacks the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: ` +
      'grant them in the private app settings (Scopes), then run setup-crm again',
  );
}
