import { ranOutCheckSpan, type RanOutEvidence } from './offer-events.handler';

// When a new_offer event may make an offer record the service no longer confirms: only an offer
// that can have dropped off the list by running out before the event was applied, and then only if
// no clean complete pass ran while it says the offer was live (the span returned).
describe('ranOutCheckSpan', () => {
  const at = (time: string) => new Date(`2026-12-01T${time}Z`);
  const evidence: RanOutEvidence = {
    receivedAt: at('10:00:00'),
    nowMs: at('10:01:00').getTime(),
    requestAskedAt: at('09:00:00'),
    requestLinkedAt: at('09:00:02'),
  };
  const claim = (created: string | null, expires: string | null, amount: number | null = 300_000) => ({
    created_at: created && `2026-12-01T${created}Z`,
    offer_expires: expires && `2026-12-01T${expires}Z`,
    offer_amount: amount ?? undefined,
  });
  const span = (from: string, to: string) => ({ fromMs: at(from).getTime(), toMs: at(to).getTime() });

  it.each([
    [
      'delivered while live, past its expiry now: no pass from 10 s after it was made to 10 s before it ran out',
      claim('09:59:50', '10:00:20'),
      span('10:00:00', '10:00:10'),
    ],
    [
      // A retry of a delivery that failed while the daemon was down (a 200-kill soak, seed 20261240:
      // a 22 s offer whose event came 9 s after it ran out was flagged and never shown).
      'delivered only after it ran out, made after its request was asked for',
      claim('09:30:00', '09:59:00'),
      span('09:30:10', '09:58:50'),
    ],
    [
      'a life that began before the request was linked: checked from the link on',
      claim('09:00:01', '09:10:00'),
      span('09:00:12', '09:09:50'),
    ],
    ['not yet past its expiry: the service would still list it', claim('09:59:50', '10:05:00'), null],
    ['made before its request was asked for', claim('08:59:00', '09:59:00'), null],
    ['made after it was delivered', claim('10:00:10', '10:00:20'), null],
    ['no expiry', claim('09:59:50', null), null],
    ['an expiry that is no date', { ...claim('09:59:50', null), offer_expires: 'soon' }, null],
    ['no amount', claim('09:59:50', '10:00:20', null), null],
    [
      'no creation time, delivered while live: checked from its delivery',
      claim(null, '10:00:40'),
      span('10:00:10', '10:00:30'),
    ],
    [
      'no creation time, delivered after it ran out: nothing to check its life by',
      claim(null, '09:59:00'),
      null,
    ],
  ])('%s', (_case, claimed, expected) => {
    expect(ranOutCheckSpan(claimed, evidence)).toEqual(expected);
  });

  it("within the clocks' slack of the request being asked for, the offer stands", () => {
    expect(ranOutCheckSpan(claim('08:59:55', '09:30:00'), evidence)).toEqual(span('09:00:12', '09:29:50'));
  });

  it('never without the delivery time', () => {
    expect(ranOutCheckSpan(claim(null, '10:00:20'), { ...evidence, receivedAt: undefined })).toBeNull();
  });
});
