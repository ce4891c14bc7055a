import { notFound } from './emulator.errors';

// A HubSpot owner as the owners API answers it (https://developers.hubspot.com/docs/api/crm/owners):
// `id` is what a record's or activity's hubspot_owner_id holds; `userId` is the user's id, which "will
// result in an error if it is used to assign ownership". An archived (deactivated) owner keeps its
// `id`, has a null `userId` and `userIdIncludingInactive` instead.
export interface EmulatedOwner {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  userId: number;
}

export interface OwnerView {
  id: string;
  email: string;
  type: 'PERSON';
  firstName: string;
  lastName: string;
  userId: number | null;
  userIdIncludingInactive: number;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
  teams: [];
}

// Owners of a fresh emulated portal: the owner id of HubSpot's tasks guide example (64492917) and a
// second user, so that "assign to someone else" can be tried without setup.
export const DEFAULT_OWNERS: readonly EmulatedOwner[] = [
  {
    id: '64492917',
    email: 'dana.reyes@acme-realty.example',
    firstName: 'Dana',
    lastName: 'Reyes',
    userId: 9586504,
  },
  {
    id: '9001',
    email: 'morgan.lee@acme-realty.example',
    firstName: 'Morgan',
    lastName: 'Lee',
    userId: 9586505,
  },
];

const MAX_PAGE = 500;

// The portal's users as owners. Read-only through the API, as HubSpot's owners endpoints are; tests
// add and deactivate users in-process.
export class OwnerStore {
  private readonly owners = new Map<string, { owner: EmulatedOwner; archived: boolean; at: string }>();

  constructor(private readonly seed: readonly EmulatedOwner[] = DEFAULT_OWNERS) {
    this.reset();
  }

  reset(): void {
    this.owners.clear();
    for (const owner of this.seed) this.add(owner);
  }

  add(owner: EmulatedOwner): void {
    this.owners.set(owner.id, { owner, archived: false, at: new Date().toISOString() });
  }

  // A deactivated user: still listed with ?archived=true, no longer assignable.
  archive(id: string): void {
    const found = this.owners.get(id);
    if (found) this.owners.set(id, { ...found, archived: true, at: new Date().toISOString() });
  }

  // Whether hubspot_owner_id may hold this value.
  assignable(id: string): boolean {
    return this.owners.get(id)?.archived === false;
  }

  // GET /crm/v3/owners: active owners (or only archived ones), optionally by email, paged by `after`.
  list(query: { email?: string; after?: string; limit?: number; archived?: boolean }): {
    results: OwnerView[];
    paging?: { next: { after: string } };
  } {
    const all = [...this.owners.values()]
      .filter((o) => o.archived === (query.archived ?? false))
      .filter((o) => query.email === undefined || o.owner.email.toLowerCase() === query.email.toLowerCase());
    const start = Math.max(0, Number(query.after ?? 0) || 0);
    const limit = Math.min(Math.max(1, query.limit ?? 100), MAX_PAGE);
    const page = all.slice(start, start + limit);
    return {
      results: page.map((o) => view(o)),
      ...(start + limit < all.length ? { paging: { next: { after: String(start + limit) } } } : {}),
    };
  }

  // GET /crm/v3/owners/{ownerId}, by owner id or (idProperty=userId) by user id.
  get(key: string, idProperty: 'id' | 'userId' = 'id', archived = false): OwnerView {
    const found = [...this.owners.values()].find(
      (o) =>
        o.archived === archived &&
        (idProperty === 'id' ? o.owner.id === key : String(o.owner.userId) === key),
    );
    if (!found) throw notFound(`Owner ${key} not found`);
    return view(found);
  }
}

function view(o: { owner: EmulatedOwner; archived: boolean; at: string }): OwnerView {
  return {
    id: o.owner.id,
    email: o.owner.email,
    type: 'PERSON',
    firstName: o.owner.firstName,
    lastName: o.owner.lastName,
    userId: o.archived ? null : o.owner.userId,
    userIdIncludingInactive: o.owner.userId,
    createdAt: o.at,
    updatedAt: o.at,
    archived: o.archived,
    teams: [],
  };
}
