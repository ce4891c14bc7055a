import { updatesGivenUp } from './soak-service';

describe('updatesGivenUp', () => {
  it('names the counters and offers of UPDATEs given up, whatever their shape; nothing else', () => {
    expect(
      updatesGivenUp([
        {
          outcome: 'gave_up',
          event: { counter_offer_id: 9013, offer_id: 7068, counter_offer_status: 'rejected' },
        },
        { outcome: 'gave_up', event: { counter_offer: { counter_offer_id: '9014', offer_id: '7069' } } },
        { outcome: 'gave_up', event: { event: 'counter_offer_rejected', offer_id: 7070 } },
        { outcome: 'delivered', event: { counter_offer_id: 9015, offer_id: 7071 } },
        { outcome: 'gave_up', event: { event: 'new_offer', offer_id: 7072, offer_request_id: 1 } },
      ]),
    ).toEqual(new Set(['counter:9013', 'offer:7068', 'counter:9014', 'offer:7069', 'offer:7070']));
  });
});
