import { keptReadAt, showsOver, type ShownStatus } from './request-status.order';

const now = new Date('2026-03-01T12:00:00Z');
const at = (minute: number) => new Date(now.getTime() - (60 - minute) * 60_000);
const shown = (status: string, readAt: Date | null = null): ShownStatus => ({ status, readAt });

describe('showsOver (which offer request status the deal shows)', () => {
  it('shows any first status, never the same one again', () => {
    expect(showsOver(undefined, { status: 'in_review' }, now)).toBe(true);
    expect(showsOver(shown(''), { status: 'in_review' }, now)).toBe(true);
    expect(showsOver(shown('active', at(1)), { status: 'active', readAt: at(2) }, now)).toBe(false);
  });

  it('shows a status read after the shown one, even when it ranks lower (a reopened request)', () => {
    expect(showsOver(shown('under_contract', at(10)), { status: 'active', readAt: at(20) }, now)).toBe(true);
    expect(showsOver(shown('denied', at(10)), { status: 'in_review', readAt: at(20) }, now)).toBe(true);
  });

  it('does not show a status read before the shown one, even when it ranks higher', () => {
    expect(showsOver(shown('active', at(20)), { status: 'under_contract', readAt: at(10) }, now)).toBe(false);
    expect(showsOver(shown('under_contract', at(20)), { status: 'active', readAt: at(10) }, now)).toBe(false);
  });

  it('orders an undated status (an event, replayed or late) by rank: forward only', () => {
    expect(showsOver(shown('in_review', at(1)), { status: 'receiving_offers' }, now)).toBe(true);
    expect(showsOver(shown('under_contract', at(10)), { status: 'receiving_offers' }, now)).toBe(false);
    expect(showsOver(shown('expired', at(10)), { status: 'receiving_offers' }, now)).toBe(true);
    expect(showsOver(shown('receiving_offers'), { status: 'under_contract' }, now)).toBe(true);
  });

  it('keeps the shown word for a request receiving offers against an undated other word for it', () => {
    // A repeated approval event flipped the deal from the active list's `active` to the event's
    // `receiving_offers` and back with every reconcile (a targeted soak on three workers never settled).
    expect(showsOver(shown('active', at(10)), { status: 'receiving_offers' }, now)).toBe(false);
    expect(showsOver(shown('receiving_offers'), { status: 'active', readAt: at(5) }, now)).toBe(true);
  });

  it('orders by rank against a shown status with no read time, or one ahead of this clock', () => {
    expect(showsOver(shown('receiving_offers'), { status: 'active', readAt: at(5) }, now)).toBe(true);
    expect(showsOver(shown('under_contract'), { status: 'active', readAt: at(5) }, now)).toBe(false);
    const ahead = new Date(now.getTime() + 3_600_000);
    expect(showsOver(shown('under_contract', ahead), { status: 'active', readAt: at(5) }, now)).toBe(false);
    expect(showsOver(shown('active', ahead), { status: 'under_contract', readAt: at(5) }, now)).toBe(true);
  });

  it('shows unknown statuses as they are, ranked with the active ones', () => {
    expect(showsOver(shown('active'), { status: 'paused_by_operator' }, now)).toBe(true);
    expect(showsOver(shown('under_contract'), { status: 'paused_by_operator' }, now)).toBe(false);
    expect(
      showsOver(shown('under_contract', at(1)), { status: 'paused_by_operator', readAt: at(2) }, now),
    ).toBe(true);
  });
});

describe('keptReadAt', () => {
  it('keeps the new read time, or the replaced one for an undated status', () => {
    expect(keptReadAt(shown('active', at(1)), { status: 'under_contract', readAt: at(2) })).toEqual(at(2));
    expect(keptReadAt(shown('in_review', at(1)), { status: 'receiving_offers' })).toEqual(at(1));
    expect(keptReadAt(undefined, { status: 'receiving_offers' })).toBeUndefined();
  });
});
