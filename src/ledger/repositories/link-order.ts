// Which writes a link lets through. Pure, so the convergence property test drives the same rule the
// repository applies (LinkRepository.classify).

export type LinkClass = 'new' | 'changed' | 'unchanged' | 'stale';

// What a link vouches for: the content last written, and when its data was read from the remote.
export interface LinkVersion {
  crmId: string;
  contentHash: string;
  state: string;
  readAt: Date | null;
}

// What a writer would write: its content, and when it read the data (undefined: not said).
export interface LinkWrite {
  contentHash: string;
  crmId?: string;
  readAt?: Date;
}

// `stale`: the writer's data was read before the data the record shows (another writer read later
// and wrote first while this one waited its turn); written, it would put an older answer over a
// newer one until the next pass. Otherwise new, unchanged (equal content) or changed.
export function classifyLink(link: LinkVersion | undefined, write: LinkWrite, now: Date): LinkClass {
  if (!link) return 'new';
  if (readBefore(write.readAt, link.readAt, now)) return 'stale';
  return isSame(link, write) ? 'unchanged' : 'changed';
}

// Whether an answer read at `readAt` is older than one read at `shownReadAt`. Either time unknown:
// no order, the write goes ahead as before read times were kept. A shown read time later than now
// is not trusted either (another worker's clock running ahead of this one's, or this clock set
// back): held to it, every write of the record would be refused until the clock caught up.
export function readBefore(readAt: Date | undefined, shownReadAt: Date | null, now: Date): boolean {
  if (!readAt || !shownReadAt) return false;
  if (shownReadAt.getTime() > now.getTime()) return false;
  return readAt.getTime() < shownReadAt.getTime();
}

export function isSame(link: LinkVersion, write: LinkWrite): boolean {
  return (
    link.state === 'active' &&
    link.contentHash === write.contentHash &&
    (write.crmId === undefined || write.crmId === link.crmId)
  );
}
