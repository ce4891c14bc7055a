import { readBefore } from '../../ledger/repositories/link-order';

// Which offer request status the listing deal shows when two disagree. The spec shows no transitions
// (a service may reopen a request: under_contract -> active when a deal falls through, denied ->
// in_review on resubmission), so the order is by when each status was read from the service, not by
// how far along it looks. A status with no read time (an event, which a sender may repeat or deliver
// late, or an acceptance the service gave no time) can only be ordered by rank: it moves the deal
// forward, never back.

// What the deal shows (the ledger's request-status link): the status and when it was read.
export interface ShownStatus {
  status: string;
  readAt: Date | null;
}

// A status about to be shown: `readAt` is when the service said it (a fetch that started then, the
// time of the acceptance it follows from); undefined when nothing tells.
export interface StatusReading {
  status: string;
  readAt?: Date;
}

// How far along a request looks; only for statuses without read times to compare. Statuses we do
// not know are shown as they are and rank with the active ones (they are never dropped).
const RANK: Record<string, number> = {
  in_submission: 1,
  initial_offer: 1,
  in_review: 1,
  processing: 2,
  active: 3,
  receiving_offers: 3,
  expired: 3,
  denied: 4,
  under_contract: 5,
  closed: 6,
};

// The words the service has for a request receiving offers: the declared status and the approval
// event's.
const ACTIVE_WORDS = new Set(['active', 'receiving_offers']);

export function statusRank(status: string): number {
  return RANK[status] ?? 3;
}

// True when `next` replaces what the deal shows. Both read times known (and the shown one not ahead
// of this clock): the later read wins, whatever the rank. Otherwise the rank decides, forward only.
export function showsOver(shown: ShownStatus | undefined, next: StatusReading, now: Date): boolean {
  if (!shown || shown.status === '') return true;
  if (shown.status === next.status) return false;
  // An undated word for the state the deal already shows (an approval event, repeated or late, says
  // `receiving_offers` of a request the active list showed `active`) changes nothing: shown, it
  // flipped the deal back and forth with every reconcile.
  if (!next.readAt && ACTIVE_WORDS.has(shown.status) && ACTIVE_WORDS.has(next.status)) return false;
  if (next.readAt && shown.readAt && shown.readAt.getTime() !== next.readAt.getTime()) {
    if (readBefore(next.readAt, shown.readAt, now)) return false;
    if (shown.readAt.getTime() <= now.getTime()) return true;
  }
  return statusRank(next.status) >= statusRank(shown.status);
}

// The read time the deal's status keeps once `next` is shown: its own, else the one it replaces, so
// a status shown from an undated event still counts as no older than the answer it replaced (a late
// acceptance of a request that has since reopened stays behind).
export function keptReadAt(shown: ShownStatus | undefined, next: StatusReading): Date | undefined {
  return next.readAt ?? shown?.readAt ?? undefined;
}
