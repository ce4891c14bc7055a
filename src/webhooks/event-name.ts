import { EVENT_PAYLOADS, isPlainObject, type JsonObject } from '../cash-offer/schema';

type KnownEvent = keyof typeof EVENT_PAYLOADS;

// The spec names the events (`offer_request_approved`, `new_offer`) and says only that "an UPDATE
// call is made to the callback" when a buyer rejects a counter: not its payload, nor whether UPDATE
// is an `event` value or the HTTP method. A service may spell a known event in another case, send
// the counter's refusal as an event of its own name (`counter_offer_rejected`), or as a PUT/PATCH
// with no `event` at all. Each of those is read as the event it plainly is.

// The known event a delivery is, or undefined (stored flagged for the operator, as before).
// `method`: the HTTP method it came with.
export function canonicalEvent(body: JsonObject, method = 'POST'): KnownEvent | undefined {
  const named = body.event;
  if (typeof named === 'string' && named.trim() !== '') return knownByName(named.trim());
  if (named !== undefined && named !== null) return undefined;
  // No event name: a PUT or PATCH is the UPDATE call; so is a POST that only speaks of a counter's
  // status (never an offer's fields: a new_offer without its name is not guessed).
  if (method !== 'POST') return 'UPDATE';
  return speaksOfCounterOnly(body) ? 'UPDATE' : undefined;
}

function knownByName(name: string): KnownEvent | undefined {
  const known = (Object.keys(EVENT_PAYLOADS) as KnownEvent[]).find(
    (event) => event.toLowerCase() === name.toLowerCase(),
  );
  if (known) return known;
  // "counter_offer_rejected", "counter-offer.declined", "CounterOfferUpdated": the UPDATE, named.
  return /counter/i.test(name) && /reject|declin|updat/i.test(name) ? 'UPDATE' : undefined;
}

function speaksOfCounterOnly(body: JsonObject): boolean {
  const sources = [body, ...['counter_offer', 'data', 'payload'].map((k) => body[k]).filter(isPlainObject)];
  const aboutCounter = sources.some(
    (s) => s.counter_offer_status !== undefined || s.counter_offer_id !== undefined,
  );
  const aboutOffer = sources.some((s) => s.offer_amount !== undefined);
  return aboutCounter && !aboutOffer;
}

// The body as stored and handled: `event` set to the known event, the sender's own name kept beside
// it (`event_as_sent`) where it differed, so the operator sees what came.
export function withCanonicalEvent(body: JsonObject, event: KnownEvent): JsonObject {
  if (body.event === event) return body;
  return body.event === undefined ? { ...body, event } : { ...body, event, event_as_sent: body.event };
}
