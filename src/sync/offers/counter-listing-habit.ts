import { LINK } from '../common/listing-deal.properties';
import type { LinkRepository } from '../../ledger';
import { decodeCounterLink, type CounterLinkContent } from './counter-link';
import { isRefusedCounter } from './offer-record.view';

// The one reading that only a waiting counter's offer shows: seen on any counter, it settles how
// this service lists a countered offer.
const ONLY_WHILE_WAITING = 'countered';
// The brokerage's latest counters read for it: the service the next counter meets is the one the
// latest met (a ledger may outlive a change of service), and the read stays small.
const COUNTERS_READ = 50;

// How this brokerage's service lists an offer right after it was countered, as read on its latest
// counters (the `l` of their links): see habitOf. With `service` (a serviceMark), only the counters
// sent to that service are read.
export async function counterListingHabit(
  links: LinkRepository,
  brokerageId: string,
  readings: readonly string[],
  service?: string,
): Promise<string | undefined> {
  return (await counterListing(links, brokerageId, readings, service)).habit;
}

// The habit, with how the same counters' offers were listed once their buyers refused them.
export async function counterListing(
  links: LinkRepository,
  brokerageId: string,
  readings: readonly string[],
  service?: string,
): Promise<{ habit: string | undefined; refusedListedAs: Set<string> }> {
  const fragment = service === undefined ? '"l":"' : `"u":"${service}"`;
  const read = await links.latestByContent(brokerageId, LINK.counter, fragment, COUNTERS_READ);
  const counters = read.map(decodeCounterLink);
  return { habit: habitOf(counters, readings), refusedListedAs: refusedListings(counters) };
}

// `countered` if any counter read it; else whichever of `readings` most counters read (a tie to the
// earlier in `readings`), else undefined. A buyer who refuses within the send leaves a read of the
// refused offer instead (`rejected`; or `active`, on a service that lists a countered offer
// `rejected` and puts a refused one back on the market): once a refusal is known, a read equal to
// how the service listed an offer after its buyer's refusal, on any counter, proves nothing and is
// left out, unless every read is such (a service that lists a countered offer as it lists a refused
// one; such a habit gives way to a read that differs: listedAtSendOf). Before the refusal is known,
// the reads of the counters that waited outweigh it. Before, any `active` read settled it, and one
// such read made a lost counter's offer, listed `rejected` while it waited, look refused by its
// buyer (readings sweep 1594 run 3: Counter rejected, the service holding the counter pending).
// And only the counter's own refusal was weighed: readings sweep 1613 run 1 (countered offers
// listed `rejected`, refused ones `active`) had a counter read `active` as its buyer accepted it
// outweigh a later one read `rejected` while it waited.
export function habitOf(
  counters: readonly Pick<CounterLinkContent, 'listedAtSend' | 'listedAfterRefusal'>[],
  readings: readonly string[],
): string | undefined {
  const reads = counters.filter((c) => c.listedAtSend !== undefined && readings.includes(c.listedAtSend));
  if (reads.some((c) => c.listedAtSend === ONLY_WHILE_WAITING)) return ONLY_WHILE_WAITING;
  const refused = refusedListings(counters);
  const telling = reads.filter((c) => !refused.has(c.listedAtSend ?? ''));
  const counted = telling.length > 0 ? telling : reads;
  let habit: string | undefined;
  let most = 0;
  for (const listed of readings) {
    const count = counted.filter((c) => c.listedAtSend === listed).length;
    if (count > most) [habit, most] = [listed, count];
  }
  return habit;
}

// How this service was seen listing an offer once its buyer refused our counter on it.
export function refusedListings(
  counters: readonly Pick<CounterLinkContent, 'listedAfterRefusal'>[],
): Set<string> {
  return new Set(counters.flatMap((c) => (c.listedAfterRefusal !== undefined ? [c.listedAfterRefusal] : [])));
}

// How this service lists an offer whose buyer refused our counter, where that tells a refusal from a
// lapse: the listings of refusals that were no lapse (read before the counter's expiry, or told by an
// UPDATE), once a counter taken as lapsed was seen listed otherwise. Empty until both are seen, or
// where lapses and refusals are listed alike. A buyer may refuse a counter seconds after its expiry
// on a service that lapses counters on a schedule (full soak 20261241: refused 3 s past it, listed
// `rejected` as refusals are, where lapsed counters reopen their offer; shown `expired`).
export function refusalListingsApartFromLapses(
  counters: readonly Pick<CounterLinkContent, 'status' | 'listedAfterRefusal' | 'endedPastExpiry'>[],
): Set<string> {
  const listed = (keep: (c: (typeof counters)[number]) => boolean) =>
    new Set(
      counters
        .filter(keep)
        .flatMap((c) => (c.listedAfterRefusal !== undefined ? [c.listedAfterRefusal] : [])),
    );
  const refusals = listed((c) => c.status !== 'expired' && isRefusedCounter(c.status) && !c.endedPastExpiry);
  // An offer listed `expired` may have run out on its own clock, its counter with it, whatever this
  // service does with a counter's own expiry: it tells nothing of how a lapse is listed.
  const lapses = listed((c) => c.status === 'expired' && c.listedAfterRefusal !== 'expired');
  return [...lapses].some((l) => !refusals.has(l)) ? refusals : new Set();
}

// refusalListingsApartFromLapses over the brokerage's latest counters that ended.
export async function refusalListingsTold(links: LinkRepository, brokerageId: string): Promise<Set<string>> {
  const read = await links.latestByContent(brokerageId, LINK.counter, '"f":"', COUNTERS_READ);
  return refusalListingsApartFromLapses(read.map(decodeCounterLink));
}
