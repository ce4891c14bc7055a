import { CrmError } from '../crm.error';
import type { CrmErrorCode } from '../crm.error';
import { HubSpotCallError } from './hubspot-error.mapper';

// Failures that are about the inputs, not about the call: worth splitting the batch to find them.
const ABOUT_INPUTS: ReadonlySet<CrmErrorCode> = new Set(['INVALID_RECORD', 'NOT_FOUND', 'CONFLICT']);

// Why one input failed: `alone` when it was sent (or named) by itself, so the error is about it;
// otherwise it failed with its whole batch (an outage, a refused token, the isolation cap).
export class InputFailure {
  constructor(
    readonly error: CrmError,
    readonly alone: boolean,
  ) {}
}

export interface IsolatorHooks<T> {
  // Which input of `items` a whole-batch error names, if HubSpot named one.
  named(error: HubSpotCallError, items: T[]): number | undefined;
  // Called for every call made only to isolate a failure (the extra calls).
  onExtraCall(): void;
}

// Sends a batch; when HubSpot fails it whole because of an input (its batch upsert, update and
// associate do), finds the bad inputs and sends the rest again:
// - an input HubSpot named fails alone with HubSpot's error, and the others go again in one call;
// - otherwise the batch is split in halves (bisect) until each bad input is alone.
// A batch with one bad input costs about one extra call when HubSpot names it, and at most
// 2·log2(n) when it does not. Failures not about the inputs (auth, rate limit, outage) fail every
// input of the batch with the call's error.
// Splitting is capped per batch (enough for a few unnamed bad inputs), so an error that is really
// about the whole batch cannot turn 1 call into 2n: past the cap, a failing part fails each of its
// inputs with HubSpot's error. Isolating a named input is not capped: each such call settles one
// input for certain, so a batch of n bad named inputs costs at most n calls, each with its own error.
// Returns, per input, the send's result or the error that input failed with.
export function sendIsolating<T, R>(
  items: T[],
  send: (items: T[]) => Promise<R[]>,
  hooks: IsolatorHooks<T>,
): Promise<(R | InputFailure)[]> {
  const budget = { left: 3 * 2 * Math.ceil(Math.log2(Math.max(2, items.length))) };
  return isolate(items, send, hooks, budget, 'none');
}

async function isolate<T, R>(
  items: T[],
  send: (items: T[]) => Promise<R[]>,
  hooks: IsolatorHooks<T>,
  budget: { left: number },
  extra: 'none' | 'named' | 'split',
): Promise<(R | InputFailure)[]> {
  if (extra !== 'none') hooks.onExtraCall();
  if (extra === 'split') budget.left--;
  let error: CrmError;
  try {
    return await send(items);
  } catch (caught) {
    error = caught instanceof CrmError ? caught : new CrmError('UNAVAILABLE', String(caught));
  }
  const aboutInputs = ABOUT_INPUTS.has(error.code);
  if (!aboutInputs || items.length === 1) {
    return items.map(() => new InputFailure(error, aboutInputs && items.length === 1));
  }
  const out = new Array<R | InputFailure>(items.length);
  const named = error instanceof HubSpotCallError ? hooks.named(error, items) : undefined;
  let parts: number[][];
  const all = items.map((_, i) => i);
  let how: 'named' | 'split';
  if (named !== undefined && named >= 0 && named < items.length) {
    out[named] = new InputFailure(error, true);
    parts = [all.filter((i) => i !== named)];
    how = 'named';
  } else if (budget.left > 0) {
    const half = Math.ceil(items.length / 2);
    parts = [all.slice(0, half), all.slice(half)];
    how = 'split';
  } else {
    return items.map(() => new InputFailure(error, false));
  }
  const answers = await Promise.all(
    parts.map((indexes) =>
      isolate(
        indexes.map((i) => items[i]),
        send,
        hooks,
        budget,
        how,
      ),
    ),
  );
  parts.forEach((indexes, p) => indexes.forEach((i, n) => (out[i] = answers[p][n])));
  return out;
}

// HubSpot's error, told about the one record it is about, in HubSpot's words.
export function aloneError(error: CrmError, record: string, label: string): CrmError {
  const words = error instanceof HubSpotCallError ? error.hubspotMessage : error.message;
  return new CrmError(error.code, `${label}: ${words}`, {
    record,
    fields: error.fields,
    status: error.status,
    retryAfterMs: error.retryAfterMs,
  });
}
