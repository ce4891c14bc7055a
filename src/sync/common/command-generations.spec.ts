import type { OutboxCommand } from '../../ledger';
import { commandGenerations, currentGeneration } from './command-generations';

const command = (id: number, state: OutboxCommand['state']): OutboxCommand =>
  ({ id, state }) as OutboxCommand;

describe('command generations', () => {
  it('finds each generation in order up to the first missing one', async () => {
    const stored = [command(3, 'dead'), command(8, 'dead'), command(12, 'done')];
    const find = (generation: number) => Promise.resolve(stored[generation - 1] ?? null);
    expect(await commandGenerations(find)).toEqual(stored);
    expect(await commandGenerations(find, 2)).toEqual(stored.slice(1));
    expect(await commandGenerations(find, 4)).toEqual([]);
  });

  it.each([
    ['none yet: the first', [], { generation: 1 }],
    [
      'the last is live: it',
      [command(3, 'dead'), command(8, 'pending')],
      { generation: 2, command: command(8, 'pending') },
    ],
    ['the last was refused: the next', [command(3, 'dead')], { generation: 2, refused: command(3, 'dead') }],
  ])('the current generation: %s', (_case, chain, current) => {
    expect(currentGeneration(chain)).toEqual(current);
  });
});
