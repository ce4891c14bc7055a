import { requestStatusWrong } from './soak-checks';

describe('requestStatusWrong', () => {
  it.each([
    ['under_contract', 'under_contract', true, null],
    ['under_contract', 'active', true, 'an offer on it is accepted'],
    ['under_contract', 'receiving_offers', false, 'an offer on it is accepted'],
    ['active', 'active', true, null],
    ['active', 'receiving_offers', true, null],
    ['active', 'in_review', true, 'the active list shows it'],
    ['active', '', true, 'the active list shows it'],
    ['active', 'under_contract', true, 'no offer on it is accepted'],
    ['in_review', 'under_contract', true, 'no offer on it is accepted'],
  ])('service %s, deal shows %s (list shows status: %s): %s', (service, shown, listShows, why) => {
    expect(requestStatusWrong(service, shown, listShows)).toBe(why);
  });

  it('takes any status short of a contract where nothing tells the daemon more', () => {
    // An approval known only by its event, which may be lost, under a list that names no request.
    expect(requestStatusWrong('active', 'in_review', false)).toBeNull();
    // A create answered `processing`, `active` or with no status while the service still reviews it.
    for (const shown of ['in_review', 'processing', 'active', ''])
      expect(requestStatusWrong('in_review', shown, true)).toBeNull();
    expect(requestStatusWrong('processing', 'in_review', true)).toBeNull();
  });
});
