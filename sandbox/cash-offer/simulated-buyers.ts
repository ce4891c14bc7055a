import { JsonObject, PrelimBody, PrelimResult, validateWire } from '../../src/cash-offer/schema';
import { assertValid } from './sandbox.errors';
import { StoredOffer, StoredOfferRequest } from './sandbox.types';

// A simulated buyer's criteria. A property matches when every criterion the property states is
// inside the box (unstated criteria do not exclude it).
export interface BuyBox {
  states: readonly string[];
  postalPrefixes?: readonly string[];
  minPrice?: number;
  maxPrice?: number;
  minBeds?: number;
  minYear?: number;
}

export interface SimulatedBuyer {
  name: string;
  boxes: readonly BuyBox[];
}

export const SIMULATED_BUYERS: readonly SimulatedBuyer[] = [
  {
    name: 'Lone Star Homes LLC',
    boxes: [
      { states: ['TX'], postalPrefixes: ['75', '76'], minPrice: 100_000, maxPrice: 450_000, minBeds: 2 },
      { states: ['TX'], postalPrefixes: ['77', '78'], minPrice: 80_000, maxPrice: 350_000, minYear: 1960 },
    ],
  },
  {
    name: 'Sunbelt Rentals Fund',
    boxes: [
      { states: ['TX', 'OK'], minPrice: 60_000, maxPrice: 300_000, minBeds: 3 },
      { states: ['FL'], minPrice: 90_000, maxPrice: 400_000, minBeds: 2 },
      { states: ['GA'], postalPrefixes: ['30'], maxPrice: 350_000 },
    ],
  },
  {
    name: 'Peach State Flips',
    boxes: [{ states: ['GA', 'SC'], minPrice: 50_000, maxPrice: 250_000, minYear: 1950 }],
  },
  {
    name: 'Desert Equity Partners',
    boxes: [
      { states: ['AZ'], postalPrefixes: ['85'], minPrice: 150_000, maxPrice: 600_000, minBeds: 2 },
      { states: ['NV'], minPrice: 150_000, maxPrice: 550_000 },
    ],
  },
  {
    name: 'Heartland Holdings',
    boxes: [{ states: ['OH', 'IN', 'MO', 'TX'], maxPrice: 200_000, minBeds: 2, minYear: 1940 }],
  },
];

function boxMatches(box: BuyBox, p: JsonObject): boolean {
  const state = typeof p.StateOrProvince === 'string' ? p.StateOrProvince.toUpperCase() : '';
  if (!box.states.includes(state)) return false;
  const postal = typeof p.PostalCode === 'string' ? p.PostalCode : '';
  if (box.postalPrefixes && !box.postalPrefixes.some((prefix) => postal.startsWith(prefix))) return false;
  const price = typeof p.ListPrice === 'number' ? p.ListPrice : undefined;
  if (price !== undefined && box.minPrice !== undefined && price < box.minPrice) return false;
  if (price !== undefined && box.maxPrice !== undefined && price > box.maxPrice) return false;
  const beds = typeof p.BedroomsTotal === 'number' ? p.BedroomsTotal : undefined;
  if (beds !== undefined && box.minBeds !== undefined && beds < box.minBeds) return false;
  const year = typeof p.YearBuilt === 'number' ? p.YearBuilt : undefined;
  if (year !== undefined && box.minYear !== undefined && year < box.minYear) return false;
  return true;
}

// POST /offer-requests/prelim: how many buyers and buy boxes the property matches.
export function prelimCounts(
  body: unknown,
  buyers: readonly SimulatedBuyer[] = SIMULATED_BUYERS,
): PrelimResult {
  assertValid(validateWire(PrelimBody, body));
  const inventory = (body as { inventory: JsonObject }).inventory;
  let buyerCount = 0;
  let boxCount = 0;
  for (const buyer of buyers) {
    const matching = buyer.boxes.filter((box) => boxMatches(box, inventory)).length;
    boxCount += matching;
    if (matching > 0) buyerCount++;
  }
  return { buyer_count: buyerCount, buy_box_count: boxCount };
}

// What a simulated buyer offers by default: 88 % of the asking price, seller pays commissions.
export function buyerOfferDefaults(
  r: StoredOfferRequest,
  nowMs: number,
  lifetimeMs: number,
  buyerIndex = r.offer_request_id % SIMULATED_BUYERS.length,
): Omit<
  StoredOffer,
  'offer_id' | 'offer_request_id' | 'created_at' | 'offer_status' | 'offer_decided_at' | 'counter_offer_id'
> {
  const buyer = SIMULATED_BUYERS[buyerIndex % SIMULATED_BUYERS.length];
  return {
    external_id: null,
    offer_amount: Math.round((r.offer_request_asking * 0.88) / 100) * 100 || 1,
    buyer_pays_buyer_broker_commission: false,
    buyer_pays_listing_broker_commission: false,
    buyer_broker_commission_pct: 3,
    listing_broker_commission_pct: 2.5,
    offer_expires: new Date(nowMs + lifetimeMs).toISOString(),
    offer_memo: `Cash offer from ${buyer.name}`,
    additional_terms: null,
    earnest_money: 5000,
    em_hard_post_inspection: false,
    lease_back: false,
    lease_back_period: 0,
    flexible_closing: true,
    post_possession: false,
    post_possession_period: 0,
    waive_warranty: false,
    inspection_period: 10,
    offer_is_counter_offer: false,
    test: r.test,
    viewed: false,
    offer_feedback: null,
    buyerName: buyer.name,
  };
}
