import { isForward } from './request-status.rank';

describe('isForward (a request status never moves the deal backwards)', () => {
  it('moves forward and accepts any first value', () => {
    expect(isForward(undefined, 'in_review')).toBe(true);
    expect(isForward('in_review', 'receiving_offers')).toBe(true);
    expect(isForward('receiving_offers', 'under_contract')).toBe(true);
    expect(isForward('under_contract', 'closed')).toBe(true);
  });

  it('refuses a late approval after the contract, and repeats', () => {
    expect(isForward('under_contract', 'receiving_offers')).toBe(false);
    expect(isForward('active', 'active')).toBe(false);
  });

  it('shows an unknown status as it is, beside the active ones', () => {
    expect(isForward('active', 'paused_by_operator')).toBe(true);
    expect(isForward('under_contract', 'paused_by_operator')).toBe(false);
  });
});
