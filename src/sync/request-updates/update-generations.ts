import { outboxKey, type OutboxCommand } from '../../ledger';
import { commandGenerations } from '../common/command-generations';

export const UPDATE_OFFER_REQUEST = 'update_offer_request';

// A deal's listing-agent updates form one chain of generations, each keyed by its place in it: the
// agent may set a value the service held before (Ann, then Bo, then Ann again), which a key made of
// the body's hash would find already done and never send.
export function updateKey(brokerageId: string, dealId: string, generation: number): string {
  return outboxKey(brokerageId, `deal:${dealId}`, `${UPDATE_OFFER_REQUEST}#${generation}`);
}

export interface UpdateGenerations {
  // How many generations exist (the next is generations + 1).
  generations: number;
  // The last one, whatever its state.
  last?: OutboxCommand;
  // The last one the service did not refuse: sent, being sent, or waiting to be.
  lastLive?: OutboxCommand;
}

export async function updateGenerations(
  find: (generation: number) => Promise<OutboxCommand | null>,
  from = 1,
): Promise<UpdateGenerations> {
  const chain = await commandGenerations(find, from);
  const lastLive = lastLiveOf(chain);
  return {
    generations: from - 1 + chain.length,
    ...(chain.length > 0 ? { last: chain.at(-1) } : {}),
    ...(lastLive ? { lastLive } : {}),
  };
}

// The last of these updates the service did not refuse: sent, being sent, or waiting to be.
export function lastLiveOf(updates: readonly OutboxCommand[]): OutboxCommand | undefined {
  return updates.filter((command) => command.state !== 'dead').at(-1);
}

// Whether the deal's listing-agent fields (hashed) need a new update. Not while the update the
// service refused carries the same (the agent must change them); not while the last update sent or
// on its way carries them; with none of ours yet, when they differ from what the create sent
// (`submittedHash`, the request link's hash).
export function updateWanted(updates: UpdateGenerations, hash: string, submittedHash: string): boolean {
  if (updates.last?.state === 'dead' && hashOf(updates.last) === hash) return false;
  if (updates.lastLive) return hashOf(updates.lastLive) !== hash;
  return hash !== submittedHash;
}

function hashOf(command: OutboxCommand): string | undefined {
  return (command.payload as { hash?: string }).hash;
}

// An earlier update of the deal that may reach the service after this one if this one goes now: on
// the wire (`sending`), its answer lost (`unknown`: it may still land, and its reconcile resends it,
// as superseded, only then), or due and perhaps taken by another drain this moment (a drain checks
// for newer updates just before it sends, which a newer update queued a moment later escapes). An
// earlier one waiting out a retry's delay is no such update: when its time comes it finds this one
// and is not sent.
export function earlierUpdateOnItsWay(
  earlier: readonly OutboxCommand[],
  nowMs: number,
): OutboxCommand | undefined {
  return earlier.find(
    (command) =>
      command.state === 'sending' ||
      command.state === 'unknown' ||
      ((command.state === 'pending' || command.state === 'failed') &&
        (command.nextAttemptAt === null || command.nextAttemptAt.getTime() <= nowMs)),
  );
}
