import { MediaSigner } from './media.signer';
import { DEFAULT_REQUEST_LIFETIME_MS } from './request.lifecycle';
import { SandboxClock } from './sandbox.clock';
import { badRequest } from './sandbox.errors';
import { SandboxStore } from './sandbox.store';
import { SandboxAccount, StoredOfferRequest } from './sandbox.types';

const STATES = ['TX', 'FL', 'GA', 'AZ', 'NV', 'OH', 'NC', 'TN'];
const STREETS = [
  'Main St',
  'Oak Ave',
  'Maple Dr',
  'Cedar Ln',
  'Elm St',
  'Pine Rd',
  'Lakeview Blvd',
  'Hillcrest Way',
];
const CITIES = ['Dallas', 'Tampa', 'Atlanta', 'Phoenix', 'Las Vegas', 'Columbus', 'Charlotte', 'Nashville'];
export const MAX_SEED = 1_000_000;

// Creates many approved, active requests at once (benchmarks, marketplace tests): no events,
// no emails, one bulk insert into the active index.
export function seedActiveRequests(
  store: SandboxStore,
  clock: SandboxClock,
  signer: MediaSigner,
  owner: SandboxAccount,
  count: number,
): { created: number; ids: [number, number] | [] } {
  if (!Number.isInteger(count) || count < 1 || count > MAX_SEED)
    throw badRequest(`count must be a whole number from 1 to ${MAX_SEED}`);
  const nowMs = clock.nowMs();
  const expires = new Date(nowMs + DEFAULT_REQUEST_LIFETIME_MS).toISOString();
  const created: StoredOfferRequest[] = [];
  for (let i = 0; i < count; i++) {
    const id = store.nextRequestId();
    const propertyId = store.nextPropertyId();
    const s = id % STATES.length;
    // Spread over the last `count` seconds so the default sort has distinct times.
    const requestedAtMs = nowMs - (count - i) * 1000;
    const r: StoredOfferRequest = {
      offer_request_id: id,
      requested_by_agent: owner.userId,
      submitted_by_user: owner.userId,
      inventory_property_id: propertyId,
      offer_requested_at: new Date(requestedAtMs).toISOString(),
      requestedAtMs,
      offer_requested_decided_by: 'a3e1f0c2-5b6d-4e7f-8091-a2b3c4d5e6f7',
      offer_request_is_mls: id % 3 === 0,
      offer_request_deal_type: null,
      offer_request_asking: 100_000 + ((id * 7919) % 400) * 1000,
      offer_request_expires_at: expires,
      offer_request_is_approved: true,
      offer_request_decided_at: new Date(requestedAtMs).toISOString(),
      offer_request_viewed_at: null,
      offer_request_refreshed_at: null,
      offer_request_status: 'active',
      offer_request_external_id: `seed-${id}`,
      test: true,
      ownerKey: owner.key,
      property: {
        StreetNumber: String(100 + (id % 9800)),
        StreetName: STREETS[id % STREETS.length],
        PostalCity: CITIES[s],
        StateOrProvince: STATES[s],
        PostalCode: String(30000 + (id % 60000)).padStart(5, '0'),
        MlsStatus: 'Active',
        BedroomsTotal: 2 + (id % 4),
        BathroomsFull: 1 + (id % 3),
        LivingArea: 900 + (id % 2200),
        YearBuilt: 1950 + (id % 70),
        PropertySubType: 'Single Family Residence',
      },
      media: [{ token: signer.newToken(), url: `https://photos.sandbox.example/${propertyId}/front.jpg` }],
      assumptions: [],
      seeded: true,
    };
    store.addRequest(r);
    store.expiringRequests.add(r);
    created.push(r);
  }
  store.active.addMany(created);
  store.noteExpiry(expires);
  return { created: count, ids: [created[0].offer_request_id, created[created.length - 1].offer_request_id] };
}
