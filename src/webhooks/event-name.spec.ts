import { canonicalEvent, withCanonicalEvent } from './event-name';
import { parseWebhookBody } from './webhook-event.parser';

describe('canonicalEvent: the known event a delivery plainly is', () => {
  it.each([
    [{ event: 'new_offer' }, 'POST', 'new_offer'],
    [{ event: 'NEW_OFFER' }, 'POST', 'new_offer'],
    [{ event: 'Offer_Request_Approved' }, 'POST', 'offer_request_approved'],
    [{ event: 'update' }, 'POST', 'UPDATE'],
    [{ event: 'counter_offer_rejected', counter_offer_id: 4 }, 'POST', 'UPDATE'],
    [{ event: 'counter-offer.declined' }, 'POST', 'UPDATE'],
    [{ event: 'CounterOfferUpdated' }, 'POST', 'UPDATE'],
    // The "UPDATE call" as the HTTP method, with no event name.
    [{ counter_offer_id: 4, offer_id: 3 }, 'PATCH', 'UPDATE'],
    [{ offer_id: 3 }, 'PUT', 'UPDATE'],
    // A POST with no name that speaks only of a counter.
    [{ counter_offer_id: 4, counter_offer_status: 'rejected' }, 'POST', 'UPDATE'],
    [{ data: { counter_offer_status: 'rejected', offer_id: 3 } }, 'POST', 'UPDATE'],
  ])('%j by %s is %s', (body, method, expected) => {
    expect(canonicalEvent(body, method)).toBe(expected);
  });

  it.each([
    [{ event: 'offer_withdrawn' }, 'POST'],
    [{ event: 'counter_offer_created' }, 'POST'],
    [{ hello: 1 }, 'POST'],
    // An offer's fields with no name are not guessed into a new_offer, nor a counter.
    [{ offer_id: 3, offer_amount: 1, counter_offer_id: 4 }, 'POST'],
    [{ event: 7 }, 'PATCH'],
  ])('%j by %s is none of them (stored flagged)', (body, method) => {
    expect(canonicalEvent(body, method)).toBeUndefined();
  });

  it("keeps the sender's own name beside the known one", () => {
    expect(withCanonicalEvent({ event: 'counter_offer_rejected', offer_id: 3 }, 'UPDATE')).toEqual({
      event: 'UPDATE',
      event_as_sent: 'counter_offer_rejected',
      offer_id: 3,
    });
    expect(withCanonicalEvent({ offer_id: 3 }, 'UPDATE')).toEqual({ event: 'UPDATE', offer_id: 3 });
    const same = { event: 'UPDATE', offer_id: 3 };
    expect(withCanonicalEvent(same, 'UPDATE')).toBe(same);
  });

  it('parses a PATCH with no event as an UPDATE to apply, ordered by its request', () => {
    const parsed = parseWebhookBody('{"counter_offer_id":4,"offer_id":3,"offer_request_id":7}', 'PATCH');
    expect(parsed).toMatchObject({
      ok: true,
      eventType: 'UPDATE',
      flagged: false,
      orderingKey: 'offer_request:7',
      payload: { event: 'UPDATE' },
    });
    expect(parseWebhookBody('{"counter_offer_id":4}', 'POST')).toMatchObject({
      ok: true,
      eventType: 'UPDATE',
    });
    expect(parseWebhookBody('{"event":"NEW_OFFER","offer_id":"x"}')).toMatchObject({ ok: false });
  });
});
