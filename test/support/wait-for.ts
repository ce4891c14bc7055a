import { inspect } from 'node:util';

// The one way tests wait for a condition: poll a probe until it answers, with a deadline, instead
// of sleeping. A probe "answers" by returning anything but undefined, null or false (so 0, '' and
// [] are answers: a probe that means "non-empty" says so, e.g. `rows.length > 0 && rows`).
//
// A probe may also throw, e.g. a jest `expect` inside it: a throw counts as "not yet", the same
// as returning undefined, so one function serves both styles; at the deadline the error names
// what was awaited and carries the probe's last answer or the message of its last throw (and the
// thrown error itself as `cause`), so a failing test says why it failed.

export type Pending = undefined | null | false;

export interface WaitForOptions {
  // Says what the test is waiting for, in the words of the timeout error: "the run to finish".
  what: string;
  timeoutMs?: number;
  // Polls that search the HubSpot emulator pass 250 or more, to stay under its 5 searches a second.
  intervalMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_INTERVAL_MS = 25;

export async function waitFor<T>(
  probe: () => T | Promise<T>,
  { what, timeoutMs = DEFAULT_TIMEOUT_MS, intervalMs = DEFAULT_INTERVAL_MS }: WaitForOptions,
): Promise<Exclude<T, Pending>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: Attempt<T>;
    try {
      const value = await probe();
      if (isAnswer(value)) return value;
      last = { returned: value };
    } catch (error) {
      last = { threw: error };
    }
    if (Date.now() > deadline) throw timedOut(what, timeoutMs, last);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

type Attempt<T> = { returned: T } | { threw: unknown };

function isAnswer<T>(value: T): value is Exclude<T, Pending> {
  return value !== undefined && value !== null && value !== false;
}

function timedOut<T>(what: string, timeoutMs: number, last: Attempt<T>): Error {
  const head = `timed out after ${timeoutMs} ms waiting for ${what}`;
  if ('returned' in last) return new Error(`${head}; the probe last returned ${describe(last.returned)}`);
  const reason = last.threw instanceof Error ? last.threw.message : describe(last.threw);
  return new Error(`${head}; the probe last threw: ${reason}`, { cause: last.threw });
}

function describe(value: unknown): string {
  return inspect(value, { depth: 3, breakLength: Infinity, maxArrayLength: 20, maxStringLength: 500 });
}
