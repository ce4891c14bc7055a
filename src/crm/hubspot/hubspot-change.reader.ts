import type { Client } from '@hubspot/api-client';
import { FilterOperatorEnum } from '@hubspot/api-client/lib/codegen/crm/objects';
import type { Filter } from '@hubspot/api-client/lib/codegen/crm/objects';
import type { CrmChangePage, CrmCursor, CrmKind, CrmRecord, ReadChangesOptions } from '../crm.types';
import {
  HUBSPOT_OBJECT,
  ID_PROPERTY,
  MODIFIED_PROPERTY,
  PIPELINE_PROPERTY,
  STAGE_PROPERTY,
} from './hubspot.constants';
import type { HubSpotAssociationReader } from './hubspot-association.reader';
import { compareCrmCursor as compareCursor } from '../crm-change-filter';
import { cursorOf, toCrmRecord } from './hubspot-record.mapper';
import type { HubSpotRequestRunner } from './hubspot-request.runner';

interface ReaderSettings {
  overlapMs: number;
  searchPageSize: number;
}

// Incremental reads on the search API, keyset-paged on the last-modified time:
// every page is a fresh query "modified >= the last time seen" (after = 0), so
// - the 10,000-results-per-query cap never applies (no query pages past its first 200);
// - a record modified while we read moves forward and is met again, instead of shifting
//   offsets under us and making us skip a neighbour;
// - ties (many records with one timestamp) are walked by id in a second, id-sorted query.
export class HubSpotChangeReader {
  constructor(
    private readonly client: Client,
    private readonly runner: HubSpotRequestRunner,
    private readonly associations: HubSpotAssociationReader,
    private readonly settings: ReaderSettings,
  ) {}

  async *read(options: ReadChangesOptions): AsyncIterable<CrmChangePage> {
    const { kind } = options;
    const pageSize = Math.min(options.pageSize ?? this.settings.searchPageSize, this.settings.searchPageSize);
    const modified = MODIFIED_PROPERTY[kind];
    const base = baseFilters(options);
    const properties = [
      ...new Set([
        ...options.properties,
        modified,
        ID_PROPERTY,
        ...(kind === 'deal' ? [PIPELINE_PROPERTY, STAGE_PROPERTY] : []),
      ]),
    ];
    let lowerMs = options.since ? Date.parse(options.since.updatedAt) - this.settings.overlapMs : null;
    let boundaryMs = Number.NEGATIVE_INFINITY;
    const seenAtBoundary = new Set<string>();
    let cursor: CrmCursor | null = options.since;

    const emit = async (records: CrmRecord[]): Promise<CrmChangePage> => {
      records.sort((a, b) => compareCursor(cursorOf(a), cursorOf(b)));
      await this.associations.attach(kind, records, options.withAssociations);
      for (const r of records) {
        const ms = Date.parse(r.updatedAt);
        if (ms !== boundaryMs) {
          boundaryMs = ms;
          seenAtBoundary.clear();
        }
        seenAtBoundary.add(r.id);
        if (!cursor || compareCursor(cursorOf(r), cursor) > 0) cursor = cursorOf(r);
      }
      return { records, cursor: cursor! };
    };

    for (;;) {
      const timeFilter: Filter[] =
        lowerMs === null ? [] : [filter(modified, FilterOperatorEnum.Gte, String(lowerMs))];
      const results = await this.search(kind, [...base, ...timeFilter], [modified], properties, pageSize);
      const records = results.map((o) => toCrmRecord(kind, o));
      const fresh = records.filter(
        (r) => !(Date.parse(r.updatedAt) === boundaryMs && seenAtBoundary.has(r.id)),
      );
      if (fresh.length > 0) yield await emit(fresh);
      if (results.length < pageSize) return;
      if (fresh.length === 0) {
        // A full page of one timestamp we have already seen: walk that timestamp by id.
        yield* this.walkTimestamp(kind, base, properties, pageSize, boundaryMs, seenAtBoundary, emit);
        lowerMs = boundaryMs + 1;
        continue;
      }
      lowerMs = boundaryMs;
    }
  }

  private async *walkTimestamp(
    kind: CrmKind,
    base: Filter[],
    properties: string[],
    pageSize: number,
    atMs: number,
    seen: Set<string>,
    emit: (records: CrmRecord[]) => Promise<CrmChangePage>,
  ): AsyncIterable<CrmChangePage> {
    const modified = MODIFIED_PROPERTY[kind];
    let afterId = '0';
    for (;;) {
      const filters = [
        ...base,
        filter(modified, FilterOperatorEnum.Eq, String(atMs)),
        filter(ID_PROPERTY, FilterOperatorEnum.Gt, afterId),
      ];
      const results = await this.search(kind, filters, [ID_PROPERTY], properties, pageSize);
      if (results.length === 0) return;
      afterId = results[results.length - 1].id;
      const fresh = results.map((o) => toCrmRecord(kind, o)).filter((r) => !seen.has(r.id));
      if (fresh.length > 0) yield await emit(fresh);
      if (results.length < pageSize) return;
    }
  }

  private async search(
    kind: CrmKind,
    filters: Filter[],
    sorts: string[],
    properties: string[],
    limit: number,
  ) {
    const response = await this.runner.run(
      { what: `search ${kind}s changed`, lane: 'search', idempotent: true },
      () =>
        this.client.crm.objects.searchApi.doSearch(HUBSPOT_OBJECT[kind], {
          filterGroups: filters.length > 0 ? [{ filters }] : [],
          sorts,
          properties,
          limit,
          after: '0',
        }),
    );
    return response.results;
  }
}

function filter(
  propertyName: string,
  operator: FilterOperatorEnum,
  value?: string,
  values?: string[],
): Filter {
  return { propertyName, operator, ...(value !== undefined ? { value } : {}), ...(values ? { values } : {}) };
}

function baseFilters(options: ReadChangesOptions): Filter[] {
  const f = options.filter ?? {};
  const filters: Filter[] = [];
  if (f.pipelineId) filters.push(filter(PIPELINE_PROPERTY, FilterOperatorEnum.Eq, f.pipelineId));
  if (f.stageIds && f.stageIds.length > 0)
    filters.push(filter(STAGE_PROPERTY, FilterOperatorEnum.In, undefined, f.stageIds));
  for (const [name, value] of Object.entries(f.propertyEquals ?? {}))
    filters.push(filter(name, FilterOperatorEnum.Eq, value));
  for (const name of f.propertyHasValue ?? []) filters.push(filter(name, FilterOperatorEnum.HasProperty));
  return filters;
}
