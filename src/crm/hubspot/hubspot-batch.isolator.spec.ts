import { CrmError } from '../crm.error';
import { InputFailure, sendIsolating } from './hubspot-batch.isolator';
import { HubSpotCallError } from './hubspot-error.mapper';

// A fake HubSpot batch call that fails whole (400) when any input is bad, optionally naming it.
function fakeBatch(bad: Set<number>, names: boolean) {
  const calls: number[][] = [];
  const send = (items: number[]): Promise<string[]> => {
    calls.push(items);
    const culprit = items.find((i) => bad.has(i));
    if (culprit === undefined) return Promise.resolve(items.map((i) => `ok ${i}`));
    const blamed = { ids: names ? [String(culprit)] : [], indexes: [], pairs: [] };
    return Promise.reject(
      new HubSpotCallError(
        'INVALID_RECORD',
        `upsert: ${culprit} is bad (HubSpot 400)`,
        { status: 400 },
        `${culprit} is bad`,
        blamed,
      ),
    );
  };
  return { send, calls };
}

function run(bad: number[], names: boolean, size = 100) {
  const fake = fakeBatch(new Set(bad), names);
  let extra = 0;
  const items = Array.from({ length: size }, (_, i) => i);
  const answer = sendIsolating(items, fake.send, {
    named: (error, chunk) => {
      const at = chunk.findIndex((i) => error.blamed.ids.includes(String(i)));
      return at >= 0 ? at : undefined;
    },
    onExtraCall: () => extra++,
  });
  return answer.then((results) => ({ results, calls: fake.calls, extra: () => extra }));
}

describe('sendIsolating', () => {
  it('without a named input, bisects until the bad input is alone and writes the rest', async () => {
    const { results, calls, extra } = await run([37], false);
    expect(results.filter((r) => r instanceof InputFailure)).toHaveLength(1);
    const failure = results[37] as InputFailure;
    expect(failure.alone).toBe(true);
    expect(failure.error.message).toContain('37 is bad');
    expect(results.filter((r) => typeof r === 'string')).toHaveLength(99);
    // 100 -> 50 -> 25 -> 13 -> 7 -> 4 -> 2 -> 1: two calls per level.
    expect(extra()).toBe(calls.length - 1);
    expect(extra()).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(100)));
  });

  it('with named inputs, costs one extra call per bad input, even when every input is bad', async () => {
    const all = await run(
      Array.from({ length: 100 }, (_, i) => i),
      true,
    );
    expect(all.results.every((r) => r instanceof InputFailure && r.alone)).toBe(true);
    expect(all.extra()).toBe(99);

    const { results, extra } = await run([5, 80], true);
    expect(results.filter((r) => r instanceof InputFailure).map((r) => r.alone)).toEqual([true, true]);
    expect(extra()).toBe(2);
  });

  it('stops splitting at its cap when every input is refused, failing each with the error', async () => {
    const { results, calls } = await run(
      Array.from({ length: 100 }, (_, i) => i),
      false,
    );
    expect(results.every((r) => r instanceof InputFailure)).toBe(true);
    expect(calls.length).toBeLessThan(60);
  });

  it('does not split a failure that is not about the inputs', async () => {
    const calls: number[][] = [];
    const results = await sendIsolating(
      [1, 2, 3],
      (items) => {
        calls.push(items);
        return Promise.reject(new CrmError('UNAVAILABLE', 'HubSpot 503'));
      },
      { named: () => undefined, onExtraCall: () => undefined },
    );
    expect(calls).toHaveLength(1);
    expect(results.every((r) => r instanceof InputFailure && !r.alone)).toBe(true);
  });
});
