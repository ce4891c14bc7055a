import { SPEC_READING_CHOICES, type SpecReadingValues } from '../sandbox/cash-offer/spec-readings';
import { SoakRandom } from './soak-random';

// A service written from the spec alone differs from ours wherever the spec says "not shown", and
// in all of those places at once. The sweep draws whole combinations of the sandbox's spec readings
// (docs/sandbox.md, "Spec readings") from a seed, so the soak runs against services nobody chose.

// Readings whose choices are numbers rather than words: a few plausible values each.
const NUMBER_CHOICES: Partial<Record<keyof SpecReadingValues, readonly unknown[]>> = {
  activeLimitMax: [null, 25, 10],
  maxMediaItems: [50, 5],
};

export function drawReadings(random: SoakRandom): Partial<SpecReadingValues> {
  for (;;) {
    const drawn: Record<string, unknown> = {};
    for (const [key, choices] of Object.entries(SPEC_READING_CHOICES)) {
      const values = Array.isArray(choices) ? choices : NUMBER_CHOICES[key as keyof SpecReadingValues];
      if (values) drawn[key] = random.pick(values);
    }
    const readings = drawn as unknown as SpecReadingValues;
    // An offer that ran out listed `rejected`: the record shows Rejected as the service says, where
    // the soak's check, reading the sandbox's store, expects Expired (a documented limit: a service
    // with no `expired` status holds it as rejected). Not drawn, so a run reports what is new.
    if (readings.expiredOfferListedAs === 'rejected') continue;
    // A counter the seller's reject leaves standing shows ended until a buyer is seen accepting such
    // a counter (docs/spec-decisions.md): where its own buyer never answers and no other teaches it,
    // nothing the service shows can tell (a documented limit, like an unseen refusal below). And a
    // service that decides only offers listed `active` refuses the agent's reject of a countered offer
    // listed otherwise: the soak's decision check holds every decision to be carried out. Both are
    // run by the e2e flows (test/e2e/sync-seller/seller-reject-counter.e2e-spec.ts).
    if (readings.counterAfterSellerReject === 'standing') continue;
    if (readings.counteredOfferDecisions === 'as-listed' && readings.counteredOfferListedAs !== 'active')
      continue;
    if (refusalCanBeSeen(readings) && lapseCanBeSeen(readings)) return readings;
  }
}

// A buyer's refusal of a counter must be knowable for the soak's check to hold the daemon to it:
// by the UPDATE, or with none, by the countered offer's listing moving from a waiting status the
// daemon can tell (docs/spec-decisions.md, "Other readings", the documented limits). A service that
// sends no UPDATE and lists the offer the same before and after the refusal is left out: no
// connector can see that refusal, only the agent's own follow-up can. A service that delivers each
// event once counts as sending none: an UPDATE sent while the killed daemon was down is gone.
export function refusalCanBeSeen(r: SpecReadingValues): boolean {
  if (r.counterRejectedCallback !== 'none' && r.eventDelivery !== 'once') return true;
  const waiting = r.counteredOfferListedAs;
  const after = r.counterRejectedOfferListedAs === 'countered' ? waiting : r.counterRejectedOfferListedAs;
  if (after === 'rejected') return waiting !== 'rejected';
  if (after === 'active') return waiting === 'countered';
  return false;
}

// Likewise a counter's lapse (counterLapse): no event tells of it, only the countered offer's listing
// moving from the status it waited under, to active again or to what an expired offer is listed as,
// or dropped from the list after the counter's expiry while its own is still ahead (UnlistedOffers).
// A service that lists it the same before and after is left out.
export function lapseCanBeSeen(r: SpecReadingValues): boolean {
  if (r.counterLapse === 'never') return true;
  const after = r.counterLapse === 'offer-reopened' ? 'active' : r.expiredOfferListedAs;
  return after !== r.counteredOfferListedAs;
}
