import type { Client } from '@hubspot/api-client';
import { CrmError } from '../crm.error';
import type { CrmAssociationPair, CrmAssociationResult } from '../crm.types';
import { HUBSPOT_OBJECT, MAX_BATCH_INPUTS } from './hubspot.constants';
import { InputFailure, aloneError, sendIsolating } from './hubspot-batch.isolator';
import { fromStandardError } from './hubspot-error.mapper';
import type { HubSpotRequestRunner } from './hubspot-request.runner';

// Links records with v4 batch associate calls, one per (from kind, to kind) and 100 pairs, each pair
// answered on its own.
export class HubSpotAssociationWriter {
  // Calls made only to isolate bad pairs in a failed batch (also counted in the runner's calls).
  isolationCalls = 0;

  constructor(
    private readonly client: Client,
    private readonly runner: HubSpotRequestRunner,
  ) {}

  async associate(pairs: CrmAssociationPair[]): Promise<CrmAssociationResult[]> {
    const results = new Array<CrmAssociationResult>(pairs.length);
    const groups = new Map<string, number[]>();
    pairs.forEach((pair, i) => {
      const key = `${pair.from.kind}>${pair.to.kind}`;
      groups.set(key, [...(groups.get(key) ?? []), i]);
    });
    for (const indexes of groups.values()) {
      for (let start = 0; start < indexes.length; start += MAX_BATCH_INPUTS) {
        const chunk = indexes.slice(start, start + MAX_BATCH_INPUTS);
        await this.associateChunk(pairs, chunk, results);
      }
    }
    return results;
  }

  // HubSpot's batch associate fails whole when one pair is bad (no 207 in its spec), so a failed
  // call is isolated like a write: the bad pair fails alone with HubSpot's message, the rest link.
  private async associateChunk(
    pairs: CrmAssociationPair[],
    chunk: number[],
    results: CrmAssociationResult[],
  ): Promise<void> {
    const { from, to } = pairs[chunk[0]];
    const label = (p: CrmAssociationPair): string => `${p.from.kind} ${p.from.id} -> ${p.to.kind} ${p.to.id}`;
    const send = async (indexes: number[]): Promise<CrmAssociationResult[]> => {
      const answer = await this.runner.run(
        {
          what: `associate ${indexes.length} ${from.kind}s with ${to.kind}s`,
          lane: 'general',
          idempotent: true,
        },
        () =>
          this.client.crm.associations.v4.batchApi.createDefault(
            HUBSPOT_OBJECT[from.kind],
            HUBSPOT_OBJECT[to.kind],
            {
              inputs: indexes.map((i) => ({ _from: { id: pairs[i].from.id }, to: { id: pairs[i].to.id } })),
            },
          ),
      );
      const done = new Set(answer.results.map((r) => `${r._from.id}>${r.to.id}`));
      // Per-pair errors, should HubSpot send any in a 200, are attributed by their pair.
      const failures = new Map<string, unknown>();
      for (const entry of answer.errors ?? []) {
        const ctx = entry.context ?? {};
        failures.set(`${ctx.fromObjectId?.[0] ?? ''}>${ctx.toObjectId?.[0] ?? ''}`, entry);
      }
      return indexes.map((i) => {
        const pair = pairs[i];
        const key = `${pair.from.id}>${pair.to.id}`;
        if (done.has(key)) return { pair, ok: true };
        const entry = failures.get(key);
        const error = entry
          ? fromStandardError(entry, pair.from.id, `associate ${label(pair)}`)
          : new CrmError('UNAVAILABLE', `associate ${label(pair)}: HubSpot answered without a result`, {
              record: pair.from.id,
            });
        return { pair, ok: false, error };
      });
    };
    const answered = await sendIsolating(chunk, send, {
      named: (error, indexes) => {
        const at = indexes.findIndex((i) =>
          error.blamed.pairs.some(([f, t]) => f === pairs[i].from.id && t === pairs[i].to.id),
        );
        return at >= 0 ? at : undefined;
      },
      onExtraCall: () => this.isolationCalls++,
    });
    chunk.forEach((i, n) => {
      const answer = answered[n];
      const pair = pairs[i];
      results[i] =
        answer instanceof InputFailure
          ? {
              pair,
              ok: false,
              error: answer.alone
                ? aloneError(answer.error, pair.from.id, `associate ${label(pair)}`)
                : answer.error.forRecord(pair.from.id, `associate ${label(pair)}`),
            }
          : answer;
    });
  }
}
