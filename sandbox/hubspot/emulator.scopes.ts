import { HubSpotHttpError } from './emulator.errors';

// The private-app scopes the emulated endpoints ask for. HubSpot names them per object type and
// per read/write; a token without the scope a call needs gets 403 MISSING_SCOPES.
export const ALL_SCOPES: readonly string[] = [
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.objects.deals.read',
  'crm.objects.deals.write',
  'crm.schemas.contacts.read',
  'crm.schemas.contacts.write',
  'crm.schemas.deals.read',
  'crm.schemas.deals.write',
  'crm.objects.owners.read',
];

const TYPE_SCOPE: Record<string, string> = {
  contacts: 'contacts',
  contact: 'contacts',
  '0-1': 'contacts',
  deals: 'deals',
  deal: 'deals',
  '0-3': 'deals',
};

// Reads are GETs, searches and batch reads; everything else writes.
function isRead(method: string, path: string): boolean {
  return method === 'GET' || /\/(search|batch\/read)$/.test(path);
}

// Tasks ask for the contacts scopes: the scope list on HubSpot's tasks guide
// (https://developers.hubspot.com/docs/api/crm/tasks, "Scope requirements") names
// crm.objects.contacts.read and crm.objects.contacts.write; tasks have no scopes of their own.
const OBJECT_SCOPE: Record<string, string> = {
  ...TYPE_SCOPE,
  tasks: 'contacts',
  task: 'contacts',
  '0-27': 'contacts',
};

// The scope a request needs, or undefined when the emulator does not check one (notes, tokens).
export function requiredScope(method: string, path: string): string | undefined {
  const access = isRead(method, path) ? 'read' : 'write';
  const objects =
    /^\/crm\/v[34]\/objects\/([^/]+)/.exec(path) ?? /^\/crm\/v4\/associations\/([^/]+)/.exec(path);
  if (objects) {
    const type = OBJECT_SCOPE[objects[1].toLowerCase()];
    return type ? `crm.objects.${type}.${access}` : undefined;
  }
  const properties = /^\/crm\/v3\/properties\/([^/]+)/.exec(path);
  if (properties) {
    const type = TYPE_SCOPE[properties[1].toLowerCase()];
    return type ? `crm.schemas.${type}.${access}` : undefined;
  }
  // The owners API's scope (https://developers.hubspot.com/docs/api/crm/owners, "Scope requirements").
  if (/^\/crm\/v3\/owners(\/|$)/.test(path)) return 'crm.objects.owners.read';
  const pipelines = /^\/crm\/v3\/pipelines\/([^/]+)/.exec(path);
  if (pipelines) {
    const type = TYPE_SCOPE[pipelines[1].toLowerCase()];
    return type ? `crm.objects.${type}.${access}` : undefined;
  }
  return undefined;
}

// HubSpot's 403 body for a token without a needed scope: the scope is named in errors[].context.
export function missingScope(scope: string): HubSpotHttpError {
  return new HubSpotHttpError(
    403,
    'MISSING_SCOPES',
    "This app hasn't been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.",
    {
      errors: [
        {
          message: 'One or more of the following scopes are required.',
          context: { requiredScopes: [scope] },
        },
      ],
      links: { scopes: 'https://developers.hubspot.com/scopes' },
    },
  );
}
