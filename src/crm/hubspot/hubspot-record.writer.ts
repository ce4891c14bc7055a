import type { Client } from '@hubspot/api-client';
import { CrmError } from '../crm.error';
import type { CrmKind, CrmUpdateInput, CrmUpsertInput, CrmWriteResult } from '../crm.types';
import { HUBSPOT_OBJECT, MAX_BATCH_INPUTS } from './hubspot.constants';
import { fromStandardError } from './hubspot-error.mapper';
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

// Batch writes, 100 inputs per call, each input carrying an objectWriteTraceId so that HubSpot
// answers per record (207) and one bad record fails alone.
export class HubSpotRecordWriter {
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
      async (chunk, traceIds) => {
        const answer = (await this.runner.run(
          { what: `upsert ${chunk.length} ${kind}s by ${uniqueProperty}`, lane: 'general', idempotent: true },
          () =>
            this.client.crm.objects.batchApi.upsert(type, {
              inputs: chunk.map((input, n) => ({
                id: input.key,
                idProperty: uniqueProperty,
                objectWriteTraceId: traceIds[n],
                properties: toHubSpotProperties(kind, input.properties, input),
              })),
            }),
        )) as BatchAnswer;
        const pending = chunk.map((input, n) => ({
          key: input.key,
          traceId: traceIds[n],
          label: `${kind} ${uniqueProperty}=${input.key}`,
        }));
        return matchResults(answer, pending, (r) => r.properties[uniqueProperty] ?? undefined);
      },
    );
  }

  update(kind: CrmKind, inputs: CrmUpdateInput[]): Promise<CrmWriteResult[]> {
    const type = HUBSPOT_OBJECT[kind];
    return this.inBatches(
      inputs,
      (i) => i.id,
      async (chunk, traceIds) => {
        const answer = (await this.runner.run(
          { what: `update ${chunk.length} ${kind}s`, lane: 'general', idempotent: true },
          () =>
            this.client.crm.objects.batchApi.update(type, {
              inputs: chunk.map((input, n) => ({
                id: input.id,
                objectWriteTraceId: traceIds[n],
                properties: toHubSpotProperties(kind, input.properties, input),
              })),
            }),
        )) as BatchAnswer;
        const pending = chunk.map((input, n) => ({
          key: input.id,
          traceId: traceIds[n],
          label: `${kind} ${input.id}`,
        }));
        return matchResults(answer, pending, (r) => r.id);
      },
    );
  }

  // Splits into calls of at most 100 with no key twice in one call (HubSpot refuses duplicates),
  // runs a few calls at once, and keeps one result per input in input order.
  private async inBatches<T>(
    inputs: T[],
    keyOf: (input: T) => string,
    send: (chunk: T[], traceIds: string[]) => Promise<Map<string, CrmWriteResult>>,
  ): Promise<CrmWriteResult[]> {
    const chunks: { items: T[]; indexes: number[]; keys: Set<string> }[] = [];
    inputs.forEach((input, index) => {
      const key = keyOf(input);
      let chunk = chunks.find((c) => c.items.length < MAX_BATCH_INPUTS && !c.keys.has(key));
      if (!chunk) {
        chunk = { items: [], indexes: [], keys: new Set() };
        chunks.push(chunk);
      }
      chunk.items.push(input);
      chunk.indexes.push(index);
      chunk.keys.add(key);
    });
    const results: CrmWriteResult[] = new Array<CrmWriteResult>(inputs.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < chunks.length) {
        const chunk = chunks[next++];
        const traceIds = chunk.indexes.map((i) => `w${i}`);
        let answered: Map<string, CrmWriteResult>;
        try {
          answered = await send(chunk.items, traceIds);
        } catch (error) {
          const crmError = error instanceof CrmError ? error : new CrmError('UNAVAILABLE', String(error));
          answered = new Map(chunk.items.map((item, n) => [traceIds[n], failed(keyOf(item), crmError)]));
        }
        chunk.indexes.forEach((index, n) => (results[index] = answered.get(traceIds[n])!));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, chunks.length) }, worker));
    return results;
  }
}

function failed(key: string, error: CrmError): CrmWriteResult {
  return { key, ok: false, error: error.forRecord(key, `record ${key}`) };
}

function matchResults(
  answer: BatchAnswer,
  pending: Pending[],
  fallbackKey: (result: BatchAnswer['results'][number]) => string | undefined,
): Map<string, CrmWriteResult> {
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
  return out;
}
