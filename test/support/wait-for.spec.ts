import { stripVTControlCharacters } from 'node:util';
import { waitFor } from './wait-for';

// A probe that gives each answer in turn, then repeats the last one.
function answers<T>(...values: T[]): () => T {
  let calls = 0;
  return () => values[Math.min(calls++, values.length - 1)];
}

describe('waitFor', () => {
  it('returns the first answer the probe gives', async () => {
    const probe = answers<string | undefined>(undefined, undefined, 'ready');
    await expect(waitFor(probe, { what: 'ready', intervalMs: 1 })).resolves.toBe('ready');
  });

  it('awaits a probe that returns a promise', async () => {
    const probe = answers<number | false>(false, 7);
    await expect(waitFor(async () => probe(), { what: 'a number', intervalMs: 1 })).resolves.toBe(7);
  });

  it('keeps polling on undefined, null and false, and takes 0 and empty strings as answers', async () => {
    const probe = answers<number | null | false | undefined>(undefined, null, false, 0);
    await expect(waitFor(probe, { what: 'zero', intervalMs: 1 })).resolves.toBe(0);
    await expect(waitFor(() => '', { what: 'an empty string' })).resolves.toBe('');
  });

  it('times out naming what it waited for and what the probe last returned', async () => {
    const probe = answers<null | false>(null, false);
    await expect(waitFor(probe, { what: 'the run to finish', timeoutMs: 30, intervalMs: 1 })).rejects.toThrow(
      'timed out after 30 ms waiting for the run to finish; the probe last returned false',
    );
  });

  it('retries a probe that throws, and answers once it stops throwing', async () => {
    let calls = 0;
    const value = await waitFor(
      () => {
        calls += 1;
        expect(calls).toBeGreaterThanOrEqual(3);
        return calls;
      },
      { what: 'the third call', intervalMs: 1 },
    );
    expect(value).toBe(3);
  });

  it('times out with the last error the probe threw, kept as the cause', async () => {
    let calls = 0;
    const failure = await waitFor(
      () => {
        calls += 1;
        expect(calls).toBe(0);
        return true;
      },
      { what: 'calls to be zero', timeoutMs: 30, intervalMs: 1 },
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    const message = stripVTControlCharacters((failure as Error).message);
    const cause = (failure as Error).cause as Error;
    expect(message).toMatch(/^timed out after 30 ms waiting for calls to be zero; the probe last threw: /);
    expect(message).toContain('Expected: 0');
    expect(message).toContain(`Received: ${calls}`);
    expect(stripVTControlCharacters(cause.message)).toContain(`Received: ${calls}`);
  });

  it('keeps polling for the whole deadline, not fewer tries', async () => {
    let calls = 0;
    const started = Date.now();
    await expect(
      waitFor(() => (calls++, undefined), { what: 'never', timeoutMs: 60, intervalMs: 5 }),
    ).rejects.toThrow('waiting for never');
    expect(Date.now() - started).toBeGreaterThanOrEqual(60);
    expect(calls).toBeGreaterThan(2);
  });
});
