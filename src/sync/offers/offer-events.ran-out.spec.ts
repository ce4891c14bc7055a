import { ranOutBeforeApplied } from './offer-events.handler';

// When a new_offer event may make an offer record the service no longer confirms: only an offer
// that can have dropped off the list by running out after the event was delivered.
describe('ranOutBeforeApplied', () => {
  const received = new Date('2026-12-01T10:00:00Z');
  const claim = (created: string | null, expires: string | null, amount: number | null = 300_000) => ({
    created_at: created,
    offer_expires: expires,
    offer_amount: amount ?? undefined,
  });

  it.each([
    [
      'delivered while live, past its expiry now',
      claim('2026-12-01T09:59:50Z', '2026-12-01T10:00:20Z'),
      true,
    ],
    [
      'not yet past its expiry: the service would still list it',
      claim('2026-12-01T09:59:50Z', '2026-12-01T10:05:00Z'),
      false,
    ],
    ['delivered after the expiry it claims', claim('2026-12-01T09:00:00Z', '2026-12-01T09:59:00Z'), false],
    ['made after it was delivered', claim('2026-12-01T10:00:10Z', '2026-12-01T10:00:20Z'), false],
    ['no expiry', claim('2026-12-01T09:59:50Z', null), false],
    ['an expiry that is no date', claim('2026-12-01T09:59:50Z', 'soon'), false],
    ['no amount', claim('2026-12-01T09:59:50Z', '2026-12-01T10:00:20Z', null), false],
    ['no creation time', claim(null, '2026-12-01T10:00:20Z'), true],
  ])('%s: %s', (_case, claimed, expected) => {
    expect(ranOutBeforeApplied(claimed, received, Date.parse('2026-12-01T10:01:00Z'))).toBe(expected);
  });

  it('never without the delivery time', () => {
    expect(
      ranOutBeforeApplied(claim(null, '2026-12-01T10:00:20Z'), undefined, Date.parse('2026-12-01T10:01:00Z')),
    ).toBe(false);
  });
});
