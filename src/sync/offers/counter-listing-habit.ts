import { LINK } from '../common/listing-deal.properties';
import type { LinkRepository } from '../../ledger';
import { decodeCounterLink, type CounterLinkContent } from './counter-link';

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
  const fragment = service === undefined ? '"l":"' : `"u":"${service}"`;
  const read = await links.latestByContent(brokerageId, LINK.counter, fragment, COUNTERS_READ);
  return habitOf(read.map(decodeCounterLink), readings);
}

// `countered` if any counter read it; else whichever of `readings` most counters read (a tie to the
// earlier in `readings`), else undefined. A buyer who refuses within the send leaves a read of the
// refused offer instead (`rejected`; or `active`, on a service that lists a countered offer
// `rejected` and puts a refused one back on the market): once the refusal is known, a read equal to
// how the service listed the offer after it proves nothing and is left out, unless every read is
// such; before it is known, the reads of the counters that waited outweigh it. Before, any `active`
// read settled it, and one such read made a lost counter's offer, listed `rejected` while it waited,
// look refused by its buyer (readings sweep 1594 run 3: Counter rejected, the service holding the
// counter pending).
export function habitOf(
  counters: readonly Pick<CounterLinkContent, 'listedAtSend' | 'listedAfterRefusal'>[],
  readings: readonly string[],
): string | undefined {
  const reads = counters.filter((c) => c.listedAtSend !== undefined && readings.includes(c.listedAtSend));
  if (reads.some((c) => c.listedAtSend === ONLY_WHILE_WAITING)) return ONLY_WHILE_WAITING;
  const telling = reads.filter((c) => c.listedAtSend !== c.listedAfterRefusal);
  const counted = telling.length > 0 ? telling : reads;
  let habit: string | undefined;
  let most = 0;
  for (const listed of readings) {
    const count = counted.filter((c) => c.listedAtSend === listed).length;
    if (count > most) [habit, most] = [listed, count];
  }
  return habit;
}
