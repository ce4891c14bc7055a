import { LINK } from '../common/listing-deal.properties';
import type { LinkRepository } from '../../ledger';

// How this brokerage's service lists an offer right after it was countered, as read on the counters
// it sent (the `l` of their links): the first of `readings` seen on any of them, else undefined.
export async function counterListingHabit(
  links: LinkRepository,
  brokerageId: string,
  readings: readonly string[],
): Promise<string | undefined> {
  for (const listed of readings)
    if ((await links.countByContent(brokerageId, LINK.counter, `"l":"${listed}"`)) > 0) return listed;
  return undefined;
}
