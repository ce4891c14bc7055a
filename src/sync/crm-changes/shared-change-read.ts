import {
  changeFilterProperties,
  compareCrmCursor,
  matchesChangeFilter,
  withinChangeWindow,
  type CrmCursor,
  type CrmKind,
  type CrmRecord,
  type ReadChangesOptions,
} from '../../crm';
import type { ChangeStream } from './change-stream';

// One consumer's stream and where its stored cursor stood when the run began.
export interface StreamPosition {
  stream: ChangeStream;
  since: CrmCursor | null;
}

// The one read of a record kind for all its consumers: from the oldest of their cursors (from the
// start if one has none), with every property and association any of them needs, and no filter:
// the consumers' filters have nothing in common to narrow the read by (a pipeline, a stage list, a
// flag each), and each is applied after reading (recordsFor).
export function sharedReadOptions(kind: CrmKind, positions: StreamPosition[]): ReadChangesOptions {
  const associations = unique(positions.flatMap((p) => p.stream.withAssociations ?? []));
  return {
    kind,
    since: oldest(positions.map((p) => p.since)),
    properties: unique(
      positions.flatMap((p) => [...p.stream.properties, ...changeFilterProperties(p.stream.filter)]),
    ),
    ...(associations.length > 0 ? { withAssociations: associations } : {}),
  };
}

// What a consumer gets of one page of the shared read: the records its own read would have
// handed back, i.e. those its filter admits, changed no earlier than its own cursor less the
// adapter's overlap window. Records it did before that window are not given to it again; inside
// the window they are, as its own read re-reads them, and it skips unchanged ones by hash.
export function recordsFor(records: CrmRecord[], position: StreamPosition, overlapMs: number): CrmRecord[] {
  return records.filter(
    (r) =>
      withinChangeWindow(r.updatedAt, position.since, overlapMs) &&
      matchesChangeFilter(r, position.stream.filter),
  );
}

// Where a consumer's cursor goes once its work for a page is done: to the page's cursor when
// that is past it, else nowhere (a cursor never moves back: the shared read starts at the oldest
// consumer's, and its first pages may end before a consumer that is ahead).
export function advancedCursor(current: CrmCursor | null, page: CrmCursor): CrmCursor | null {
  return current === null || compareCrmCursor(page, current) > 0 ? page : null;
}

function oldest(cursors: (CrmCursor | null)[]): CrmCursor | null {
  let first: CrmCursor | null = null;
  for (const cursor of cursors) {
    if (cursor === null) return null;
    if (first === null || compareCrmCursor(cursor, first) < 0) first = cursor;
  }
  return first;
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}
