import type {
  CrmChangeFilter,
  CrmChangePage,
  CrmCursor,
  CrmKind,
  CrmRecord,
  ReadChangesOptions,
} from '../crm.types';
import { FUB_RESOURCE } from './followupboss.constants';
import type { FollowUpBossHttpClient } from './followupboss-http.client';
import { compareCrmCursor as compareCursor } from '../crm-change-filter';
import { cursorOf, toCrmRecord } from './followupboss-record.mapper';
import type { FubPage, FubRecord } from './followupboss.wire';

interface ReaderSettings {
  overlapMs: number;
  pageSize: number;
}

export type AttachAssociations = (
  records: CrmRecord[],
  raw: FubRecord[],
  options: ReadChangesOptions,
) => Promise<void>;

// Incremental reads on FUB's collections: `updatedAfter` (ISO UTC, crm-apis.md B6) from the
// cursor less an overlap window, sorted by `updated`, paged with the `next` cursor FUB hands out
// (deep offsets require it, B4). Records modified while we read move to the end and are met
// again; the overlap re-reads the window on purpose, and callers skip unchanged records by hash.
// FUB has no stage or custom-field filters documented for deals, so those filters apply here.
export class FollowUpBossChangeReader {
  constructor(
    private readonly http: FollowUpBossHttpClient,
    private readonly settings: ReaderSettings,
    private readonly attach: AttachAssociations,
  ) {}

  async *read(options: ReadChangesOptions): AsyncIterable<CrmChangePage> {
    const { kind } = options;
    const limit = Math.min(options.pageSize ?? this.settings.pageSize, this.settings.pageSize);
    const resource = FUB_RESOURCE[kind];
    const after = options.since
      ? new Date(Date.parse(options.since.updatedAt) - this.settings.overlapMs).toISOString()
      : undefined;
    let cursor: CrmCursor | null = options.since;
    let next: string | undefined;
    for (;;) {
      const query: Record<string, string | number | undefined> = next
        ? { next, limit, fields: 'allFields', sort: 'updated' }
        : {
            sort: 'updated',
            limit,
            fields: 'allFields',
            ...(after ? { updatedAfter: after } : {}),
            ...(kind === 'deal' && options.filter?.pipelineId
              ? { pipelineId: options.filter.pipelineId }
              : {}),
          };
      const page = await this.http.call<FubPage>({
        method: 'GET',
        path: `/${resource}`,
        query,
        what: `read ${kind}s changed`,
        idempotent: true,
      });
      const listed = (page[resource] as FubRecord[] | undefined) ?? [];
      const raw = listed.filter((r) => matches(kind, r, options.filter));
      const all = listed.map((r) => toCrmRecord(kind, r, options.properties));
      const records = raw.map((r) => toCrmRecord(kind, r, options.properties));
      records.sort((a, b) => compareCursor(cursorOf(a), cursorOf(b)));
      await this.attach(records, raw, options);
      // The cursor moves past every record read, matching or not: a skipped one is not wanted.
      for (const r of all) if (!cursor || compareCursor(cursorOf(r), cursor) > 0) cursor = cursorOf(r);
      if (cursor) yield { records, cursor };
      next = page._metadata?.next ?? undefined;
      if (!next || all.length === 0) return;
    }
  }
}

function matches(kind: CrmKind, record: FubRecord, filter: CrmChangeFilter | undefined): boolean {
  if (!filter) return true;
  const view = toCrmRecord(kind, record, [
    ...Object.keys(filter.propertyEquals ?? {}),
    ...(filter.propertyHasValue ?? []),
  ]);
  if (filter.pipelineId && view.pipelineId !== undefined && view.pipelineId !== filter.pipelineId)
    return false;
  if (filter.stageIds && filter.stageIds.length > 0 && !filter.stageIds.includes(view.stageId ?? ''))
    return false;
  for (const [name, value] of Object.entries(filter.propertyEquals ?? {})) {
    if (view.properties[name] !== value) return false;
  }
  for (const name of filter.propertyHasValue ?? []) {
    if (view.properties[name] === null || view.properties[name] === undefined) return false;
  }
  return true;
}
