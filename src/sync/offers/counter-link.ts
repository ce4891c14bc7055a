import type { Link } from '../../ledger';
import type { CounterKnowledge } from './offer-record.view';

// The ledger's link of a counter: remote id = the countered offer's id, CRM id = the service's
// counter id (or a stand-in while the service has not named it), content = what is known of it.
export interface CounterLinkContent extends CounterKnowledge {
  requestId?: number;
}

const UNNAMED_PREFIX = 'unnamed:';

// A counter whose answer carried no id still needs a unique CRM id in the ledger.
export function counterCrmId(offerId: string, counterId: string | undefined): string {
  return counterId ?? `${UNNAMED_PREFIX}${offerId}`;
}

export function encodeCounterLink(content: CounterLinkContent): string {
  return JSON.stringify({
    s: content.status,
    ...(content.requestId !== undefined ? { r: content.requestId } : {}),
    ...(content.listedAtSend !== undefined ? { l: content.listedAtSend } : {}),
  });
}

// Links written before the content was JSON hold the status alone.
export function decodeCounterLink(link: Pick<Link, 'crmId' | 'contentHash'>): CounterLinkContent {
  const id = link.crmId.startsWith(UNNAMED_PREFIX) ? undefined : link.crmId;
  let parsed: unknown;
  try {
    parsed = link.contentHash.startsWith('{') ? JSON.parse(link.contentHash) : undefined;
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return { id, status: link.contentHash };
  const { s, r, l } = parsed as { s?: unknown; r?: unknown; l?: unknown };
  return {
    id,
    status: typeof s === 'string' ? s : 'pending',
    ...(typeof r === 'number' ? { requestId: r } : {}),
    ...(typeof l === 'string' ? { listedAtSend: l } : {}),
  };
}
