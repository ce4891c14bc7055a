// How far along an offer request is, so a late event never moves the deal backwards. Statuses we
// do not know are shown as they are and rank with the active ones (they are never dropped).
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

export function statusRank(status: string): number {
  return RANK[status] ?? 3;
}

// True when `next` may replace `current` on the deal.
export function isForward(current: string | undefined, next: string): boolean {
  if (current === undefined || current === '') return true;
  if (current === next) return false;
  return statusRank(next) >= statusRank(current);
}
