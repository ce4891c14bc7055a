import { expectedOfferRecord, type ExpectedOfferRecord, type OfferFacts } from './soak-offer-truth';

// One row per case of docs/crm-mapping.md's stage rule, including the counter-offer cases once shown
// wrong.
const rows: [string, OfferFacts, ExpectedOfferRecord][] = [
  ['a new offer', { offerStatus: 'active' }, { stage: 'incoming', offerStatus: 'active', counterStatus: '' }],
  [
    'an unknown status',
    { offerStatus: 'on_hold' },
    { stage: 'incoming', offerStatus: 'on_hold', counterStatus: '' },
  ],
  [
    'accepted',
    { offerStatus: 'accepted' },
    { stage: 'accepted', offerStatus: 'accepted', counterStatus: '' },
  ],
  [
    'rejected',
    { offerStatus: 'rejected' },
    { stage: 'rejected', offerStatus: 'rejected', counterStatus: '' },
  ],
  ['expired', { offerStatus: 'expired' }, { stage: 'expired', offerStatus: 'expired', counterStatus: '' }],
  [
    'countered, the buyer has not answered',
    { offerStatus: 'countered', counterStatus: 'pending' },
    { stage: 'countered', offerStatus: 'countered', counterStatus: 'pending' },
  ],
  [
    'countered, a service that keeps the offer active meanwhile',
    { offerStatus: 'active', counterStatus: 'pending' },
    { stage: 'countered', offerStatus: 'active', counterStatus: 'pending' },
  ],
  [
    "the counter lapsed at its expiry, the offer the seller's to decide again",
    { offerStatus: 'active', counterStatus: 'expired' },
    { stage: 'counterRejected', offerStatus: 'active', counterStatus: 'expired' },
  ],
  [
    'the counter lapsed and the offer ran out with it',
    { offerStatus: 'expired', counterStatus: 'expired' },
    { stage: 'counterRejected', offerStatus: 'expired', counterStatus: 'expired' },
  ],
  [
    'the buyer took the countered offer back',
    { offerStatus: 'withdrawn', counterStatus: 'withdrawn' },
    { stage: 'counterRejected', offerStatus: 'withdrawn', counterStatus: 'withdrawn' },
  ],
  [
    'the buyer rejected the counter',
    { offerStatus: 'rejected', counterStatus: 'rejected' },
    { stage: 'counterRejected', offerStatus: 'rejected', counterStatus: 'rejected' },
  ],
  [
    'the buyer accepted the counter: the original offer, rejected by the cascade',
    { offerStatus: 'rejected', counterStatus: 'accepted' },
    { stage: 'countered', offerStatus: 'rejected', counterStatus: 'accepted' },
  ],
  [
    'the offer the buyer made by accepting the counter',
    { offerStatus: 'accepted', fromAcceptedCounter: true },
    { stage: 'accepted', offerStatus: 'accepted', counterStatus: null },
  ],
  [
    'accept requested, not yet confirmed',
    { offerStatus: 'active', pendingMove: 'accept' },
    { stage: 'acceptRequested', offerStatus: 'active', counterStatus: '' },
  ],
  [
    'reject requested, not yet confirmed',
    { offerStatus: 'active', pendingMove: 'reject' },
    { stage: 'rejectRequested', offerStatus: 'active', counterStatus: '' },
  ],
  [
    'counter requested, not yet confirmed',
    { offerStatus: 'active', pendingMove: 'counter' },
    { stage: 'counterRequested', offerStatus: 'active', counterStatus: '' },
  ],
];

describe('expectedOfferRecord (the soak’s reading of docs/crm-mapping.md)', () => {
  it.each(rows)('%s', (_name, facts, expected) => {
    expect(expectedOfferRecord(facts)).toEqual(expected);
  });
});
