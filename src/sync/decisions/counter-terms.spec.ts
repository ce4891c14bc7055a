import type { CounterOfferBody, Offer } from '../../cash-offer/schema';
import { validateWire, CounterOfferBody as CounterOfferBodyClass } from '../../cash-offer/schema';
import {
  counterStatusWordAsked,
  missingFieldsNamed,
  withFieldsFilled,
  withNamedFieldsFilled,
  withOfferTerms,
} from './counter-terms';

const offer = (extra: Partial<Offer> = {}): Offer =>
  ({
    offer_id: 41,
    offer_request_id: 7,
    offer_amount: 300_000,
    offer_status: 'active',
    buyer_pays_buyer_broker_commission: true,
    buyer_pays_listing_broker_commission: false,
    buyer_broker_commission_pct: 3,
    listing_broker_commission_pct: 2.5,
    offer_expires: '2026-12-06T10:00:00.000Z',
    offer_memo: 'cash, quick close',
    additional_terms: { closing_days: 21 },
    earnest_money: 5000,
    em_hard_post_inspection: true,
    lease_back: true,
    lease_back_period: 14,
    flexible_closing: false,
    post_possession: false,
    post_possession_period: null,
    waive_warranty: true,
    inspection_period: 10,
    ...extra,
  }) as unknown as Offer;

const amountOnly = { offer_id: 41, counter_offer_amount: 320_000 } as CounterOfferBody;

describe('withOfferTerms', () => {
  it('sends every term the agent left empty as the countered offer has it', () => {
    expect(withOfferTerms(amountOnly, offer())).toEqual({
      offer_id: 41,
      counter_offer_amount: 320_000,
      buyer_pays_buyer_broker_commission: true,
      buyer_pays_listing_broker_commission: false,
      listing_broker_commission_pct: 2.5,
      counter_earnest_money: 5000,
      counter_em_hard_post_inspection: true,
      counter_lease_back: true,
      counter_lease_back_period: 14,
      counter_flexible_closing: false,
      counter_post_possession: false,
      counter_waive_warranty: true,
      counter_inspection_period: 10,
    });
  });

  it('keeps what the agent filled, and never invents a term the offer does not have', () => {
    const body = { ...amountOnly, listing_broker_commission_pct: 2, counter_lease_back: false };
    const sent = withOfferTerms(
      body,
      offer({ earnest_money: null, inspection_period: -1 } as unknown as Partial<Offer>),
    );
    expect(sent.listing_broker_commission_pct).toBe(2);
    expect(sent.counter_lease_back).toBe(false);
    expect(sent).not.toHaveProperty('counter_earnest_money');
    expect(sent).not.toHaveProperty('counter_inspection_period');
    expect(sent).not.toHaveProperty('counter_post_possession_period');
    // Neither the memo, the expiry, the terms object nor the status: those are not terms of the offer.
    for (const field of [
      'counter_offer_memo',
      'counter_offer_expires',
      'counter_offer_terms',
      'counter_offer_status',
    ])
      expect(sent).not.toHaveProperty(field);
  });

  it('sends the body as it is when the offer is not listed', () => {
    expect(withOfferTerms(amountOnly, undefined)).toBe(amountOnly);
  });

  it('writes only what the wire allows', () => {
    expect(validateWire(CounterOfferBodyClass, withOfferTerms(amountOnly, offer()))).toEqual([]);
  });
});

describe('the fields a refusal names as missing', () => {
  const sent = withOfferTerms(amountOnly, offer());

  it.each([
    [
      'counter_offer_memo is required; counter_offer_expires is required',
      ['counter_offer_memo', 'counter_offer_expires'],
    ],
    ["body must have required property 'counter_offer_terms'", ['counter_offer_terms']],
    ['"counter_post_possession_period" is required', ['counter_post_possession_period']],
    ['missing fields: counter_offer_memo, test', ['counter_offer_memo', 'test']],
  ])('%s', (message, named) => {
    expect(missingFieldsNamed(sent, message)).toEqual(expect.arrayContaining(named));
    expect(missingFieldsNamed(sent, message)).toHaveLength(named.length);
  });

  it('are never fields the body carries, nor a longer name that contains one', () => {
    expect(missingFieldsNamed(sent, 'counter_lease_back_period must be at most 30')).toEqual([]);
    expect(missingFieldsNamed(amountOnly, 'counter_lease_back_period is required')).toEqual([
      'counter_lease_back_period',
    ]);
  });

  it('a refusal that names none (an impossible transition) is left to stand', () => {
    expect(
      withNamedFieldsFilled(sent, offer(), 'offer 41 is countered; only an active offer can be countered'),
    ).toBeUndefined();
  });
});

describe('withFieldsFilled', () => {
  it("fills fields a service required before where the counter leaves them out, and leaves the agent's own", () => {
    const sent = { ...withOfferTerms(amountOnly, offer()), counter_offer_memo: 'as discussed' };
    const filled = withFieldsFilled(sent, offer(), ['counter_offer_memo', 'counter_offer_expires']);
    expect(filled?.filled).toEqual(['counter_offer_expires']);
    expect(filled?.body).toMatchObject({
      counter_offer_memo: 'as discussed',
      counter_offer_expires: '2026-12-06T10:00:00.000Z',
    });
    expect(withFieldsFilled(sent, offer(), ['counter_offer_memo'])).toBeUndefined();
    expect(withFieldsFilled(sent, offer(), [])).toBeUndefined();
  });
});

describe('withNamedFieldsFilled', () => {
  it('fills the named fields from the offer, else with neutral values', () => {
    const sent = withOfferTerms(amountOnly, offer());
    const again = withNamedFieldsFilled(
      sent,
      offer(),
      'counter_offer_memo is required; counter_offer_expires is required; counter_offer_terms is required; counter_post_possession_period is required; counter_offer_status is required',
    );
    expect(again?.filled).toEqual([
      'counter_offer_memo',
      'counter_offer_expires',
      'counter_offer_terms',
      'counter_offer_status',
      'counter_post_possession_period',
    ]);
    expect(again?.body).toMatchObject({
      counter_offer_memo: '',
      counter_offer_expires: '2026-12-06T10:00:00.000Z',
      counter_offer_terms: { closing_days: 21 },
      counter_post_possession_period: 0,
      counter_offer_amount: 320_000,
      // Required, its words not shown: "pending", unless the service asked for another word before.
      counter_offer_status: 'pending',
    });
    expect(validateWire(CounterOfferBodyClass, again!.body)).toEqual([]);
    const inItsWord = withNamedFieldsFilled(sent, offer(), 'counter_offer_status is required', 'open');
    expect(inItsWord?.body).toMatchObject({ counter_offer_status: 'open' });
    expect(validateWire(CounterOfferBodyClass, inItsWord!.body)).toEqual([]);
  });

  it('with no offer listed, terms are false or 0 and the terms object empty', () => {
    const again = withNamedFieldsFilled(
      amountOnly,
      undefined,
      'counter_lease_back is required; counter_earnest_money is required; counter_offer_terms is required; counter_offer_expires is required',
    );
    expect(again?.body).toMatchObject({
      counter_lease_back: false,
      counter_earnest_money: 0,
      counter_offer_terms: {},
    });
    // No expiry to give: left out, so the refusal of it stands on the next answer.
    expect(again?.filled).not.toContain('counter_offer_expires');
  });
});

describe('counterStatusWordAsked', () => {
  const sent = { ...amountOnly, counter_offer_status: 'pending' } as CounterOfferBody;

  it.each([
    ['counter_offer_status may only be "open" when countering', 'open'],
    ["counter_offer_status must be one of: 'open', 'accepted', 'rejected'", 'open'],
    ['"counter_offer_status" must be \u201csubmitted\u201d', 'submitted'],
    ['counter_offer_status: expected `new`, got `pending`', 'new'],
  ])('reads the word a refusal of the status asks for: %s', (message, word) => {
    expect(counterStatusWordAsked(sent, message)).toBe(word);
  });

  it.each([
    ['a refusal about another field', 'counter_offer_memo must be "short"'],
    ['no quoted word', 'counter_offer_status is invalid'],
    ['only the word sent', 'counter_offer_status may only be "pending"'],
    ["only a buyer's answers", 'counter_offer_status must not be "accepted" or "rejected"'],
  ])('asks for nothing on %s', (_, message) => {
    expect(counterStatusWordAsked(sent, message)).toBeUndefined();
  });

  it('asks for nothing when the body sent no status (the refusal is of a missing field, filled instead)', () => {
    expect(counterStatusWordAsked(amountOnly, 'counter_offer_status may only be "open"')).toBeUndefined();
  });
});
