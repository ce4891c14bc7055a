import { readCounterUpdate, type CounterUpdate } from '../../cash-offer/counter-update.reader';
import type { JsonObject } from '../../cash-offer/schema';
import type { InboxRepository } from '../../ledger';

// How many of the newest UPDATE callbacks are read.
const UPDATES_READ = 500;

// The buyers' refusals of counters (UPDATE callbacks) this brokerage's inbox holds, newest first,
// whether applied yet or not: a reconcile reads them for an answer its listing cannot show.
export async function recentCounterUpdates(
  inbox: InboxRepository,
  brokerageId: string,
): Promise<CounterUpdate[]> {
  const events = await inbox.list({ brokerageId, eventType: 'UPDATE', limit: UPDATES_READ });
  return events.flatMap((event) => {
    try {
      return [readCounterUpdate(JSON.parse(event.payload) as JsonObject)];
    } catch {
      return [];
    }
  });
}
