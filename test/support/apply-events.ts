import type { SyncTestApp } from './sync-app';
import { waitFor } from './wait-for';

// Waits until `count` new events are in the inbox, then runs one inbox-drain. Only new ones: an event
// an earlier test left waiting for its retry is not one (a drain run before the awaited event arrived
// once retried such an event instead, and under a fault meant for the new one).
export async function applyNewEvents(t: SyncTestApp, count: number): Promise<void> {
  await waitFor(async () => (await t.ledger.inbox.depth('acme')).pending >= count, {
    what: `${count} new events in the inbox`,
  });
  await t.run('inbox-drain');
}
