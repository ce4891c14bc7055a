import type { OutboxCommand } from '../../ledger';
import { earlierUpdateOnItsWay, updateGenerations, updateKey, updateWanted } from './update-generations';

const command = (id: number, hash: string, state: OutboxCommand['state']): OutboxCommand =>
  ({ id, state, payload: { hash } }) as OutboxCommand;

describe('update generations', () => {
  it('keys each update of a deal by its place in the chain, not by what it sends', () => {
    expect(updateKey('acme', '7', 1)).not.toBe(updateKey('acme', '7', 2));
    expect(updateKey('acme', '7', 3)).toBe(updateKey('acme', '7', 3));
  });

  it('walks the chain from a generation: how many, the last, the last the service did not refuse', async () => {
    const chain = [command(4, 'ann', 'done'), command(6, 'bo', 'failed'), command(9, 'cy', 'dead')];
    const find = (g: number) => Promise.resolve(chain[g - 1] ?? null);
    expect(await updateGenerations(find)).toEqual({ generations: 3, last: chain[2], lastLive: chain[1] });
    expect(await updateGenerations(find, 3)).toEqual({ generations: 3, last: chain[2] });
    expect(await updateGenerations(find, 4)).toEqual({ generations: 3 });
  });

  it.each([
    ['no update yet, the fields as submitted', {}, 'sub', false],
    ['no update yet, the fields changed', {}, 'ann', true],
    [
      'the last update carries them (sent or on its way)',
      { lastLive: command(1, 'ann', 'pending') },
      'ann',
      false,
    ],
    ['back to a value an older update sent', { lastLive: command(2, 'bo', 'done') }, 'ann', true],
    ['back to what the create sent, after an update', { lastLive: command(2, 'bo', 'done') }, 'sub', true],
    [
      'the refused update carried them: the agent must change them',
      { last: command(3, 'cy', 'dead'), lastLive: command(2, 'bo', 'done') },
      'cy',
      false,
    ],
    [
      'after a refusal, back to what the service holds',
      { last: command(3, 'cy', 'dead'), lastLive: command(2, 'bo', 'done') },
      'bo',
      false,
    ],
    ['after a refusal, something new', { last: command(3, 'cy', 'dead') }, 'di', true],
  ])('%s', (_case, chain, hash, wanted) => {
    expect(updateWanted({ generations: 0, ...chain }, hash, 'sub')).toBe(wanted);
  });
});

describe('an earlier update that may still reach the service after a newer one', () => {
  const NOW = Date.parse('2026-11-29T10:00:00Z');
  const at = (id: number, state: OutboxCommand['state'], nextAttemptAt: number | null = null) =>
    ({ id, state, nextAttemptAt: nextAttemptAt === null ? null : new Date(nextAttemptAt) }) as OutboxCommand;

  it.each([
    ['on the wire', [at(1, 'done'), at(2, 'sending')], 2],
    ['its answer lost', [at(1, 'unknown', NOW + 60_000)], 1],
    ['due, perhaps taken by another drain this moment', [at(1, 'pending')], 1],
    ['a retry due now', [at(1, 'failed', NOW)], 1],
    [
      'a retry waiting out its delay: it will find the newer one and stand down',
      [at(1, 'failed', NOW + 1)],
      undefined,
    ],
    ['landed, replaced or refused', [at(1, 'done'), at(2, 'dead')], undefined],
    ['none', [], undefined],
  ])('%s', (_case, earlier, expected) => {
    expect(earlierUpdateOnItsWay(earlier, NOW)?.id).toBe(expected);
  });
});
