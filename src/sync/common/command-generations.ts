import type { OutboxCommand } from '../../ledger';

// A record's commands of one kind keyed by generation (#1, #2, ...): a new generation is queued once
// the last is refused (a create, a buyer lead) or replaced (a listing-agent update). Each found, in
// order, from `from` up to the first generation with no command.
export async function commandGenerations(
  find: (generation: number) => Promise<OutboxCommand | null>,
  from = 1,
): Promise<OutboxCommand[]> {
  const found: OutboxCommand[] = [];
  for (let generation = from; ; generation++) {
    const command = await find(generation);
    if (!command) return found;
    found.push(command);
  }
}

// The generation to key a command by: the last one while it is live, else the next; with the last
// command if live, and the last refused one (dead) otherwise.
export function currentGeneration(chain: readonly OutboxCommand[]): {
  generation: number;
  command?: OutboxCommand;
  refused?: OutboxCommand;
} {
  const last = chain.at(-1);
  if (last && last.state !== 'dead') return { generation: chain.length, command: last };
  return { generation: chain.length + 1, ...(last ? { refused: last } : {}) };
}
