import type { LoadedBrokerage } from './config.loader';

// What a reload changed. The scheduler reschedules only these brokerages and leaves the others alone.
export interface ConfigDiff {
  added: LoadedBrokerage[];
  changed: LoadedBrokerage[];
  removed: LoadedBrokerage[];
}

export function diffBrokerages(
  before: readonly LoadedBrokerage[],
  after: readonly LoadedBrokerage[],
): ConfigDiff {
  const old = new Map(before.map((b) => [b.id, b]));
  const next = new Map(after.map((b) => [b.id, b]));
  return {
    added: after.filter((b) => !old.has(b.id)),
    changed: after.filter((b) => old.has(b.id) && old.get(b.id)!.fingerprint !== b.fingerprint),
    removed: before.filter((b) => !next.has(b.id)),
  };
}

export function isEmptyDiff(diff: ConfigDiff): boolean {
  return diff.added.length + diff.changed.length + diff.removed.length === 0;
}
