import type { Client } from '@hubspot/api-client';
import { CrmError } from '../crm.error';
import type { CrmKind, CrmUpdateInput, CrmUpsertInput, CrmWriteResult } from '../crm.types';
import { HUBSPOT_OBJECT, MAX_BATCH_INPUTS } from './hubspot.constants';
import { InputFailure, aloneError, sendIsolating } from './hubspot-batch.isolator';
import { fromStandardError } from './hubspot-error.mapper';
import type { BlamedInputs } from './hubspot-error.mapper';
import { toHubSpotProperties } from './hubspot-record.mapper';
import type { HubSpotRequestRunner } from './hubspot-request.runner';

// The parts of a batch answer (200 or 207) the writer reads.
interface BatchAnswer {
  results: {
    id: string;
    properties: Record<string, string | null>;
    objectWriteTraceId?: string;
    _new?: boolean;
  }[];
  errors?: { context?: Record<string, string[]> }[];
}

interface Pending {
  key: string;
  // How HubSpot refers back to this input: its trace id, and its id/unique value as a fallback.
  traceId: string;
  label: string;
}

// One input of a call: the caller's input, its trace id, and how errors name it.
interface Slot<T> {
  input: T;
  traceId: string;
  key: string;
  label: string;
}

// Batch writes, 100 inputs per call. HubSpot's batch upsert and update fail whole (400) when one
// input is invalid, so a failed call is isolated (hubspot-batch.isolator.ts): one bad record fails
// alone with HubSpot's message, and the rest are written. Trace ids still go on every input, so
// that a 207 with per-input errors, should HubSpot send one, is read per record too.
export class HubSpotRecordWriter {
  // Calls made only to isolate bad inputs in a failed batch (also counted in the runner's calls).
  isolationCalls = 0;

  constructor(
    private readonly client: Client,
    private readonly runner: HubSpotRequestRunner,
    private readonly concurrency: number,
  ) {}

  upsert(kind: CrmKind, uniqueProperty: string, inputs: CrmUpsertInput[]): Promise<CrmWriteResult[]> {
    const type = HUBSPOT_OBJECT[kind];
    return this.inBatches(
      inputs,
      (i) => i.key,
      (i) => `${kind} ${uniqueProperty}=${i.key}`,
      async (slots) => {
        // A batch placing new records' first stage is sent once: retried after a lost answer, it
        // would put back a record the agent moved in between (soak sweep 1450). Such inputs go in
        // calls of their own (`retryGroup`), so the updates of linked records are still retried.
        const idempotent = slots.every(({ input }) => retryGroup(input) === RETRIED);
        const answer = (await this.runner.run(
          { what: `upsert ${slots.length} ${kind}s by ${uniqueProperty}`, lane: 'general', idempotent },
          () =>
            this.client.crm.objects.batchApi.upsert(type, {
              inputs: slots.map(({ input, traceId }) => ({
                id: input.key,
                idProperty: uniqueProperty,
                objectWriteTraceId: traceId,
                properties: toHubSpotProperties(kind, input.properties, input),
              })),
            }),
        )) as BatchAnswer;
        return matchResults(answer, slots, (r) => r.properties[uniqueProperty] ?? undefined);
      },
      retryGroup,
    );
  }

  update(kind: CrmKind, inputs: CrmUpdateInput[]): Promise<CrmWriteResult[]> {
    const type = HUBSPOT_OBJECT[kind];
    return this.inBatches(
      inputs,
      (i) => i.id,
      (i) => `${kind} ${i.id}`,
      async (slots) => {
        // A batch moving a record an agent may be moving too is sent once, as a new record's first
        // stage is (`retryGroup`): its updates of other records go in calls of their own, retried.
        const idempotent = slots.every(({ input }) => retryGroup(input) === RETRIED);
        const answer = (await this.runner.run(
          { what: `update ${slots.length} ${kind}s`, lane: 'general', idempotent },
          () =>
            this.client.crm.objects.batchApi.update(type, {
              inputs: slots.map(({ input, traceId }) => ({
                id: input.id,
                objectWriteTraceId: traceId,
                properties: toHubSpotProperties(kind, input.properties, input),
              })),
            }),
        )) as BatchAnswer;
        return matchResults(answer, slots, (r) => r.id);
      },
      retryGroup,
    );
  }

  // Splits into calls of at most 100 with no key twice in one call (HubSpot refuses duplicates)
  // and only inputs of one group (`groupOf`) in a call, runs a few calls at once, isolates the bad
  // inputs of a failed call, and keeps one result per input in input order.
  private async inBatches<T>(
    inputs: T[],
    keyOf: (input: T) => string,
    labelOf: (input: T) => string,
    send: (slots: Slot<T>[]) => Promise<CrmWriteResult[]>,
    groupOf: (input: T) => string = () => '',
  ): Promise<CrmWriteResult[]> {
    const chunks: { slots: Slot<T>[]; indexes: number[]; keys: Set<string>; group: string }[] = [];
    inputs.forEach((input, index) => {
      const key = keyOf(input);
      const group = groupOf(input);
      let chunk = chunks.find(
        (c) => c.group === group && c.slots.length < MAX_BATCH_INPUTS && !c.keys.has(key),
      );
      if (!chunk) {
        chunk = { slots: [], indexes: [], keys: new Set(), group };
        chunks.push(chunk);
      }
      chunk.slots.push({ input, traceId: `w${index}`, key, label: labelOf(input) });
      chunk.indexes.push(index);
      chunk.keys.add(key);
    });
    const results: CrmWriteResult[] = new Array<CrmWriteResult>(inputs.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < chunks.length) {
        const chunk = chunks[next++];
        const answered = await sendIsolating(chunk.slots, send, {
          named: (error, slots) => namedSlot(error.blamed, slots),
          onExtraCall: () => this.isolationCalls++,
        });
        chunk.indexes.forEach((index, n) => {
          const answer = answered[n];
          const slot = chunk.slots[n];
          results[index] = answer instanceof InputFailure ? failed(slot, answer) : answer;
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, chunks.length) }, worker));
    return results;
  }
}

// The slot a whole-batch error names: by its id or unique value, else by its position.
function namedSlot(blamed: BlamedInputs, slots: Slot<unknown>[]): number | undefined {
  for (const id of blamed.ids) {
    const at = slots.findIndex((s) => s.key === id);
    if (at >= 0) return at;
  }
  const index = blamed.indexes[0];
  return index !== undefined && index < slots.length ? index : undefined;
}

// A record isolated alone gets HubSpot's own words; one that failed with its whole batch (an
// outage, a rate limit, a refused token) gets the call's error.
function failed(slot: Slot<unknown>, failure: InputFailure): CrmWriteResult {
  const told = failure.alone
    ? aloneError(failure.error, slot.key, slot.label)
    : failure.error.forRecord(slot.key, `record ${slot.key}`);
  return { key: slot.key, ok: false, error: told };
}

function matchResults(
  answer: BatchAnswer,
  pending: Pending[],
  fallbackKey: (result: BatchAnswer['results'][number]) => string | undefined,
): CrmWriteResult[] {
  const out = new Map<string, CrmWriteResult>();
  const byTrace = new Map(pending.map((p) => [p.traceId, p]));
  const byKey = new Map(pending.map((p) => [p.key, p]));
  for (const result of answer.results) {
    const key = fallbackKey(result);
    const input =
      (result.objectWriteTraceId && byTrace.get(result.objectWriteTraceId)) ||
      (key !== undefined ? byKey.get(key) : undefined);
    if (!input) continue;
    out.set(input.traceId, { key: input.key, ok: true, id: result.id, created: result._new === true });
  }
  for (const entry of answer.errors ?? []) {
    const traceId = entry.context?.objectWriteTraceId?.[0];
    const ids = entry.context?.ids ?? [];
    const targets = traceId ? [byTrace.get(traceId)] : ids.map((id) => byKey.get(id));
    for (const input of targets) {
      if (input)
        out.set(input.traceId, {
          key: input.key,
          ok: false,
          error: fromStandardError(entry, input.key, input.label),
        });
    }
  }
  for (const input of pending) {
    if (!out.has(input.traceId)) {
      const error = new CrmError(
        'UNAVAILABLE',
        `${input.label}: HubSpot answered without a result for this record`,
        { record: input.key },
      );
      out.set(input.traceId, { key: input.key, ok: false, error });
    }
  }
  return pending.map((p) => out.get(p.traceId)!);
}

const RETRIED = 'retried';

// An input placing a new record's first stage, or moving a record an agent may be moving too
// (`moveSentOnce`), goes in calls of its own that are not retried after a lost answer; every other
// input's call is retried.
function retryGroup(input: CrmUpsertInput | CrmUpdateInput): string {
  const sentOnce =
    ('stageOnCreateOnly' in input && input.stageOnCreateOnly === true) || input.moveSentOnce === true;
  return sentOnce ? 'sent once' : RETRIED;
}
