import { accountKey } from '../../common/shared-account-limiter';
import { Client } from '@hubspot/api-client';
import { AssociationSpecAssociationCategoryEnum } from '@hubspot/api-client/lib/codegen/crm/associations/v4';
import { Clock, SystemClock } from '../../common/clock';
import { CrmError } from '../crm.error';
import { CrmAdapter } from '../crm.port';
import type { CrmAccessReport } from '../crm.port';
import type {
  CrmAssociationPair,
  CrmAssociationResult,
  CrmChangePage,
  CrmKind,
  CrmNoteInput,
  CrmPipeline,
  CrmRecord,
  CrmRecordRef,
  CrmTask,
  CrmTaskInput,
  CrmUpdateInput,
  CrmUpsertInput,
  CrmWriteResult,
  ReadChangesOptions,
} from '../crm.types';
import type { CrmSchemaReport, CrmSchemaSpec } from '../crm-schema.types';
import {
  HUBSPOT_OBJECT,
  MAX_BATCH_INPUTS,
  NOTE_TO,
  PIPELINE_PROPERTY,
  STAGE_PROPERTY,
} from './hubspot.constants';
import type { HubSpotAdapterOptions, ResolvedHubSpotOptions } from './hubspot.options';
import { resolveHubSpotOptions } from './hubspot.options';
import { HubSpotAccessChecker, missingScopesError } from './hubspot-access.checker';
import { HubSpotAssociationReader } from './hubspot-association.reader';
import { InputFailure, aloneError, sendIsolating } from './hubspot-batch.isolator';
import { HubSpotChangeReader } from './hubspot-change.reader';
import { fromStandardError } from './hubspot-error.mapper';
import { HubSpotPortalLimiters } from './hubspot-portal-limiters';
import { toCrmRecord } from './hubspot-record.mapper';
import { HubSpotRecordWriter } from './hubspot-record.writer';
import { HubSpotRequestRunner } from './hubspot-request.runner';
import { HubSpotSchemaInstaller } from './hubspot-schema.installer';
import { HubSpotTaskStore } from './hubspot-task.store';

const HUBSPOT_API = 'https://api.hubapi.com';

// The CRM port on HubSpot's official SDK. One instance per portal: it owns that portal's rate limit.
export class HubSpotCrmAdapter extends CrmAdapter {
  readonly options: ResolvedHubSpotOptions;
  private readonly client: Client;
  private readonly runner: HubSpotRequestRunner;
  private readonly associationsReader: HubSpotAssociationReader;
  private readonly changes: HubSpotChangeReader;
  private readonly writer: HubSpotRecordWriter;
  private readonly schema: HubSpotSchemaInstaller;
  private readonly access: HubSpotAccessChecker;
  private readonly tasks: HubSpotTaskStore;
  private isolationCalls = 0;

  constructor(
    options: HubSpotAdapterOptions,
    private readonly clock: Clock = new SystemClock(),
  ) {
    super();
    this.options = resolveHubSpotOptions(options);
    // numberOfApiCallRetries is left unset: the runner is the only retry layer.
    this.client = new Client({
      accessToken: this.options.accessToken,
      ...(this.options.basePath ? { basePath: this.options.basePath } : {}),
    });
    // The private-app token names the portal in the budget shared with other workers. Without
    // the process's registry of portals, the adapter keeps a budget of its own.
    const base = this.options.basePath ?? HUBSPOT_API;
    const portal = accountKey('hubspot', base, this.options.accessToken);
    const portals = this.options.portalLimiters ?? new HubSpotPortalLimiters(this.options.sharedLimiter);
    const limiter = portals.forPortal(portal, this.options);
    const brokerage = this.options.brokerageId;
    this.runner = new HubSpotRequestRunner(
      limiter,
      this.options,
      brokerage ? `brokerage ${brokerage}'s HubSpot portal` : `the HubSpot portal at ${base}`,
    );
    this.associationsReader = new HubSpotAssociationReader(this.client, this.runner);
    this.changes = new HubSpotChangeReader(this.client, this.runner, this.associationsReader, this.options);
    this.writer = new HubSpotRecordWriter(this.client, this.runner, this.options.writeConcurrency);
    this.schema = new HubSpotSchemaInstaller(this.client, this.runner);
    this.access = new HubSpotAccessChecker(this.client, this.runner, this.options.accessToken);
    this.tasks = new HubSpotTaskStore(this.client, this.runner);
  }

  // HTTP calls made so far (attempts, retries included), for metrics and benchmarks.
  get callCount(): number {
    return this.runner.calls;
  }

  // Of those, the calls made only to isolate bad inputs of a batch HubSpot failed whole.
  get isolationCallCount(): number {
    return this.writer.isolationCalls + this.isolationCalls;
  }

  get changeOverlapMs(): number {
    return this.options.overlapMs;
  }

  readChanges(options: ReadChangesOptions): AsyncIterable<CrmChangePage> {
    return this.changes.read(options);
  }

  async getRecords(
    kind: CrmKind,
    ids: string[],
    properties: string[],
    withAssociations?: CrmKind[],
  ): Promise<CrmRecord[]> {
    const records = await this.batchRead(kind, ids, properties);
    await this.associationsReader.attach(kind, records, withAssociations);
    return records;
  }

  findByUniqueValues(
    kind: CrmKind,
    uniqueProperty: string,
    values: string[],
    properties: string[],
  ): Promise<CrmRecord[]> {
    return this.batchRead(kind, values, [...properties, uniqueProperty], uniqueProperty);
  }

  private async batchRead(
    kind: CrmKind,
    ids: string[],
    properties: string[],
    idProperty?: string,
  ): Promise<CrmRecord[]> {
    const records: CrmRecord[] = [];
    const wanted = kind === 'deal' ? [...properties, PIPELINE_PROPERTY, STAGE_PROPERTY] : properties;
    for (let start = 0; start < ids.length; start += MAX_BATCH_INPUTS) {
      const chunk = ids.slice(start, start + MAX_BATCH_INPUTS);
      let answer;
      try {
        answer = await this.runner.run(
          { what: `read ${chunk.length} ${kind}s`, lane: 'general', idempotent: true },
          () =>
            this.client.crm.objects.batchApi.read(HUBSPOT_OBJECT[kind], {
              inputs: chunk.map((id) => ({ id })),
              properties: [...new Set(wanted)],
              propertiesWithHistory: [],
              ...(idProperty ? { idProperty } : {}),
            }),
        );
      } catch (error) {
        // HubSpot answers 404 when none of the ids exists (deleted deals): they are simply absent.
        if (error instanceof CrmError && error.code === 'NOT_FOUND') continue;
        throw error;
      }
      // Some unknown ids come back as 207 errors; the caller sees them as absent.
      records.push(...answer.results.map((o) => toCrmRecord(kind, o)));
    }
    return records;
  }

  upsertRecords(kind: CrmKind, uniqueProperty: string, inputs: CrmUpsertInput[]): Promise<CrmWriteResult[]> {
    return this.writer.upsert(kind, uniqueProperty, inputs);
  }

  updateRecords(kind: CrmKind, inputs: CrmUpdateInput[]): Promise<CrmWriteResult[]> {
    return this.writer.update(kind, inputs);
  }

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

  // Not idempotent: only a 429 (not acted on by HubSpot) is retried, never a timeout or a 5xx.
  async addNote(note: CrmNoteInput): Promise<{ id: string }> {
    const created = await this.runner.run({ what: 'add a note', lane: 'general', idempotent: false }, () =>
      this.client.crm.objects.notes.basicApi.create({
        properties: {
          hs_note_body: note.body,
          hs_timestamp: (note.timestamp ?? this.clock.now()).toISOString(),
        },
        associations: note.attachTo.map((ref) => ({
          to: { id: ref.id },
          types: [
            {
              associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined,
              associationTypeId: NOTE_TO[ref.kind],
            },
          ],
        })),
      }),
    );
    return { id: created.id };
  }

  createTask(task: CrmTaskInput): Promise<{ id: string }> {
    return this.tasks.create(task);
  }

  findTasks(about: CrmRecordRef): Promise<CrmTask[]> {
    return this.tasks.find(about);
  }

  completeTask(id: string): Promise<void> {
    return this.tasks.complete(id);
  }

  // HubSpot has deal pipelines only; contacts move through lifecycle stages instead.
  async listPipelines(kind: CrmKind): Promise<CrmPipeline[]> {
    if (kind !== 'deal') return [];
    const answer = await this.runner.run(
      { what: 'list deal pipelines', lane: 'general', idempotent: true },
      () => this.client.crm.pipelines.pipelinesApi.getAll(HUBSPOT_OBJECT[kind]),
    );
    return [...answer.results]
      .sort((a, b) => a.displayOrder - b.displayOrder)
      .map((p) => ({
        id: p.id,
        label: p.label,
        // An archived stage keeps its records but takes no new ones: not offered to flows.
        stages: [...p.stages]
          .filter((s) => !s.archived)
          .sort((a, b) => a.displayOrder - b.displayOrder)
          .map((s) => ({ id: s.id, label: s.label })),
      }));
  }

  // setup-crm names a missing scope up front instead of failing half-way on a 403.
  async ensureSchema(spec: CrmSchemaSpec): Promise<CrmSchemaReport> {
    const access = await this.access.check();
    if (access.missing.length > 0) throw missingScopesError(access.missing);
    return this.schema.ensure(spec);
  }

  override checkAccess(): Promise<CrmAccessReport> {
    return this.access.check();
  }
}
