import { accountKey } from '../../common/shared-account-limiter';
import { Client } from '@hubspot/api-client';
import { AssociationSpecAssociationCategoryEnum } from '@hubspot/api-client/lib/codegen/crm/associations/v4';
import { Clock, SystemClock } from '../../common/clock';
import { CrmAdapter } from '../crm.port';
import type { CrmAccessReport } from '../crm.port';
import type {
  CrmAssociationPair,
  CrmAssociationResult,
  CrmChangePage,
  CrmKind,
  CrmNoteInput,
  CrmPipeline,
  CrmPropertyLookup,
  CrmRecord,
  CrmRecordRef,
  CrmStageChange,
  CrmTask,
  CrmTaskInput,
  CrmUpdateInput,
  CrmUpsertInput,
  CrmWriteResult,
  ReadChangesOptions,
} from '../crm.types';
import type { CrmSchemaReport, CrmSchemaSpec } from '../crm-schema.types';
import { HUBSPOT_OBJECT, NOTE_TO } from './hubspot.constants';
import type { HubSpotAdapterOptions, ResolvedHubSpotOptions } from './hubspot.options';
import { resolveHubSpotOptions } from './hubspot.options';
import { HubSpotAccessChecker, missingScopesError } from './hubspot-access.checker';
import { HubSpotAssociationReader } from './hubspot-association.reader';
import { HubSpotAssociationWriter } from './hubspot-association.writer';
import { HubSpotChangeReader } from './hubspot-change.reader';
import { HubSpotPortalLimiters } from './hubspot-portal-limiters';
import { HubSpotRecordReader } from './hubspot-record.reader';
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
  private readonly changes: HubSpotChangeReader;
  private readonly reader: HubSpotRecordReader;
  private readonly writer: HubSpotRecordWriter;
  private readonly links: HubSpotAssociationWriter;
  private readonly schema: HubSpotSchemaInstaller;
  private readonly access: HubSpotAccessChecker;
  private readonly tasks: HubSpotTaskStore;

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
    const associations = new HubSpotAssociationReader(this.client, this.runner);
    this.changes = new HubSpotChangeReader(this.client, this.runner, associations, this.options);
    this.reader = new HubSpotRecordReader(this.client, this.runner, associations);
    this.writer = new HubSpotRecordWriter(this.client, this.runner, this.options.writeConcurrency);
    this.links = new HubSpotAssociationWriter(this.client, this.runner);
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
    return this.writer.isolationCalls + this.links.isolationCalls;
  }

  get changeOverlapMs(): number {
    return this.options.overlapMs;
  }

  readChanges(options: ReadChangesOptions): AsyncIterable<CrmChangePage> {
    return this.changes.read(options);
  }

  getRecords(
    kind: CrmKind,
    ids: string[],
    properties: string[],
    withAssociations?: CrmKind[],
  ): Promise<CrmRecord[]> {
    return this.reader.byIds(kind, ids, properties, withAssociations);
  }

  findByUniqueValues(
    kind: CrmKind,
    uniqueProperty: string,
    values: string[],
    properties: string[],
  ): Promise<CrmRecord[]> {
    return this.reader.byUniqueValues(kind, uniqueProperty, values, properties);
  }

  override stageHistory(ids: string[]): Promise<Map<string, CrmStageChange[]>> {
    return this.reader.stageHistory(ids);
  }

  upsertRecords(kind: CrmKind, uniqueProperty: string, inputs: CrmUpsertInput[]): Promise<CrmWriteResult[]> {
    return this.writer.upsert(kind, uniqueProperty, inputs);
  }

  updateRecords(kind: CrmKind, inputs: CrmUpdateInput[]): Promise<CrmWriteResult[]> {
    return this.writer.update(kind, inputs);
  }

  associate(pairs: CrmAssociationPair[]): Promise<CrmAssociationResult[]> {
    return this.links.associate(pairs);
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

  // From the properties API (GET /crm/v3/properties/{objectType}, archived ones left out, as they
  // take no values). HubSpot's own properties are hubspotDefined; the rest the account added.
  override async findProperty(kind: CrmKind, name: string): Promise<CrmPropertyLookup> {
    const answer = await this.runner.run(
      { what: `list ${kind} properties`, lane: 'general', idempotent: true },
      () => this.client.crm.properties.coreApi.getAll(HUBSPOT_OBJECT[kind]),
    );
    const live = answer.results.filter((p) => p.archived !== true);
    return {
      crmName: name,
      exists: live.some((p) => p.name === name),
      custom: live.filter((p) => p.hubspotDefined !== true).map((p) => ({ name: p.name, label: p.label })),
    };
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
