import { Injectable } from '@nestjs/common';
import { MEDIA_MAX_ITEMS } from '../../src/cash-offer/schema';
import { badRequest } from './sandbox.errors';

// Where the spec says "not shown", the sandbox answers as docs/spec-decisions.md decided; each
// switch here makes it answer another plausible way instead, so the daemon's flows can be run
// under every reading (docs/sandbox.md, "Spec readings").
export interface SpecReadingValues {
  // POST /counter-offers: the counter record with 201 (ours), no body with 204 or 200, or only the id.
  counterAnswer: 'record-201' | 'empty-204' | 'empty-200' | 'id-only-200';
  // How GET /offers (and PATCH /offers) show an offer whose counter the buyer has not answered:
  // the spec has no `countered` status ("offer status values beyond active, accepted and rejected:
  // not shown"), so a service may list it under a word of its own (`counter_offered`), or as one of
  // the three it shows.
  counteredOfferListedAs: 'countered' | 'counter_offered' | 'active' | 'rejected';
  // The UPDATE callback when a buyer rejects a counter: its payload is not shown.
  // `named-event`: flat, its event named `counter_offer_rejected`; `patch-no-event`: the flat fields
  // with no `event`, sent as a PATCH (the spec's "UPDATE call" read as the HTTP method).
  // `string-ids`: flat, its ids written as strings ("17"), as a sender that serialises ids as text does.
  counterRejectedCallback:
    'flat' | 'nested' | 'offer-only' | 'none' | 'named-event' | 'patch-no-event' | 'string-ids';
  // What the countered offer becomes when the buyer rejects the counter (not shown): `rejected`
  // (ours), `active` again (the seller may still accept or reject it), or still `countered`.
  counterRejectedOfferListedAs: 'rejected' | 'active' | 'countered';
  // The word for a counter the buyer has not answered.
  counterPendingWord: 'pending' | 'open';
  // The counter's status word in the UPDATE sent when its buyer rejects it (the values of
  // counter_offer_status are not shown): `rejected` (ours, the word offers use), `declined`, or
  // `buyer_rejected` (a word naming who refused).
  counterRefusedWord: 'rejected' | 'declined' | 'buyer_rejected';
  // The most GET /active-offer-requests returns in one page, whatever `limit` asked (null: no cap).
  activeLimitMax: number | null;
  // What a `limit` over activeLimitMax gets: a page of activeLimitMax (ours, silently capped), or a
  // 400 naming limit and the maximum.
  activeLimitOver: 'capped' | 'refused';
  // How GET /active-offer-requests and GET /offers answer a page past the last one (how the last
  // page is known is not shown): an empty list (ours), 404, or 400.
  pageAfterLast: 'empty' | '404' | '400';
  // The `sort` values GET /active-offer-requests takes (the spec shows only its default,
  // offer_requested_at.desc): every one of ours, only offer_requested_at.asc/.desc, only the default
  // (others refused with 400 naming `sort`), or any value ignored (always the default order).
  activeSort: 'ours' | 'requested-at' | 'default-only' | 'ignored';
  // The `request` object of each GET /active-offer-requests item: ours carries the request's id,
  // status, submission time and (to its owner) external id; `declared` only what the spec's request
  // object declares (offer_request_asking and test); `no-external-id` ours without the owner's
  // external id (the spec says it is echoed in offer payloads, not in the list).
  activeListShape: 'ours' | 'declared' | 'no-external-id';
  // Trailing slashes: every route answers with and without one (ours), or the API's routes end in one
  // and a path without it is answered 307 with the slashed path (`redirect`).
  trailingSlash: 'either' | 'redirect';
  // Where POST /offer-requests takes `offer_request_external_id` ("given on the request"): on the
  // request object (ours, the top level too), or only at the top level of the body, refused with 400
  // on the request object.
  externalIdAt: 'request' | 'body';
  // POST /offer-requests/prelim's answer: its shape is not shown.
  prelimAnswer: 'buyer_count' | 'buyers' | 'nested' | 'empty';
  // GET /offers: its query parameters are not shown. `params`: offer_request_id, status, limit and
  // offset honoured (ours); `ignored`: every parameter ignored, every offer of the account in one
  // page; `capped-25`: honoured, but at most 25 offers a page whatever `limit` asked; `max-100`:
  // honoured, a `limit` over 100 refused with 400; `paging-only`: limit (at most 100) and offset
  // honoured, the filters refused with 400 naming them; `refused`: any parameter refused with 400.
  offersQuery: 'params' | 'ignored' | 'capped-25' | 'max-100' | 'paging-only' | 'refused';
  // The order of GET /offers (not shown): the order the offers were made (ours), newest first (an
  // ORDER BY created_at DESC), or the order each was last written (`updated-last`: a table read with
  // no ORDER BY in PostgreSQL, where an updated row is written anew at the heap's end, so an offer
  // decided, countered or expired during a pass moves from its page to the last one).
  offersOrder: 'made' | 'newest-first' | 'updated-last';
  // POST /offer-requests: success code and body not shown. The full record with 201 (ours) or 200,
  // only `{ offer_request_id }` with 201 or 200, the record without `offer_request_status`, or with
  // `processing` or `active` where ours says `in_review`; `declared-201`: the record as the spec's
  // formal declaration lists it, without offer_request_id, requested_by_agent and submitted_by_user.
  createAnswer:
    | 'record-201'
    | 'declared-201'
    | 'record-200'
    | 'id-only-201'
    | 'id-only-200'
    | 'no-status'
    | 'status-processing'
    | 'status-active';
  // PATCH /offers: the updated offer with 200 (ours), or 204 with no body.
  decideAnswer: 'record-200' | 'empty-204';
  // PATCH /offer-requests[/{id}]: 204 with no body (ours, the spec's "no body"), or 200 with the record.
  updateAnswer: 'empty-204' | 'record-200';
  // POST /buyer/lead: 201 (ours) or 200, with the lead.
  leadAnswer: 'record-201' | 'record-200';
  // Status codes other than 400: `ours` (400 invalid, 409 impossible transition, 401 refused key);
  // `all-422` (422 invalid, 422 transition, 403 key); `all-400` (400 invalid, 400 transition, 403 key).
  // `key-400`: ours, but a missing or unknown key is a 400 too (the code the spec shows for errors).
  // `key-403-bare`: ours, but a missing or unknown key is a 403 `{"message":"Forbidden"}` (as Amazon
  // API Gateway in front of a service answers a missing key), words that could be a forbidden record's.
  errorCodes: 'ours' | 'all-422' | 'all-400' | 'key-400' | 'key-403-bare';
  // An offer past `offer_expires` that nobody decided: listed `expired` (ours), no longer listed by
  // GET /offers at all, listed `rejected`, or still listed `active` (a service that never expires
  // offers by itself and leaves the date to the listing side).
  expiredOfferListedAs: 'expired' | 'dropped' | 'rejected' | 'active';
  // An offer its buyer took back (the control API's withdraw; the spec shows no such status):
  // listed `withdrawn` (ours) or `cancelled`, or no longer listed by GET /offers at all.
  withdrawnOfferListedAs: 'withdrawn' | 'cancelled' | 'dropped';
  // POST and PATCH /wh (which sets the URL when is not shown): POST sets it and PATCH replaces it,
  // 404 when none is set (ours); `post-once`: a POST while a URL is set is refused with 409 (PATCH it);
  // `patch-422-when-none`: a PATCH before any URL is set is refused with 422 (POST it).
  webhookMethods: 'post-sets' | 'post-once' | 'patch-422-when-none';
  // Whether the offer a buyer makes by accepting a counter names it: `counter_offer_id` (ours), or
  // `unnamed` (only `offer_is_counter_offer`: the spec's offer table has no counter_offer_id), in
  // GET /offers, PATCH /offers and the new_offer event.
  offerNamesCounter: 'counter_offer_id' | 'unnamed';
  // `offer_is_counter_offer` ("boolean, nullable"): set (ours: true on the offer a buyer makes by
  // accepting a counter, false on others), or `null` on every offer (a service that never sets it),
  // in GET /offers, PATCH /offers and new_offer.
  counterOfferFlag: 'set' | 'null';
  // offer_decided_at is "timestamp, nullable": `filled` when an offer is decided (ours), or `null`
  // always (a service that keeps no decision time), in GET /offers, PATCH /offers and new_offer.
  offerDecidedAt: 'filled' | 'null';
  // The most `media` items one call may carry (POST /offer-requests, PATCH /offer-requests[/{id}]):
  // not shown; ours 50. More is refused whole with 400 naming `media`, as our validation does.
  maxMediaItems: number;
  // How the Authorization header carries the key: the spec writes its value as `<API_KEY>` with no
  // prefix shown. `either`: the key alone or `Bearer <key>` (ours); `key-only`: the header is the
  // key, so `Bearer <key>` is an unknown key; `bearer-only`: `Bearer <key>` and nothing else, as
  // many API-key services take it.
  authorizationForm: 'either' | 'key-only' | 'bearer-only';
  // How times are written in answers and events (the spec: "a date-time with offset"): ISO-8601 UTC
  // (ours, `2026-11-29T00:52:08.123Z`), at a US offset (`2026-11-28T18:52:08.123-06:00`), or in
  // PostgreSQL's text form (`2026-11-29 00:52:08.123000+00`) (timestamp-format.ts).
  timestampFormat: 'utc' | 'offset' | 'postgres';
  // The fields of an offer in GET /offers and PATCH /offers: every field (ours), or without those the
  // spec's offer table says are "present in webhook payloads" or "webhook payload only"
  // (`offer_request_external_id`, `external_id`, `viewed`, `offer_feedback`); events keep them.
  offerListShape: 'ours' | 'without-webhook-fields';
  // The Content-Type of an event delivery ("an HTTP POST with a JSON body"; the header is not shown):
  // `application/json` (ours); `text/plain;charset=UTF-8`, which fetch() declares for a string body
  // (the Fetch standard, "extract a body"); or `application/x-www-form-urlencoded`, which PHP's curl
  // declares for a string CURLOPT_POSTFIELDS (php.net, curl_setopt). The body is the same JSON.
  eventContentType: 'json' | 'text-plain' | 'form';
  // A counter field the seller left out (which are required is not shown): the countered offer's
  // term stands for it (ours); `defaults`: stored as its column's default, false or 0 (a listing
  // commission of 0 %), as a service that fills NOT NULL columns does; `required`: every field of
  // the spec's counter table but `test` and `counter_offer_status` must be given, else 400 naming each;
  // `all`: every field of the table, those two included (the status as the service's pending word,
  // `counterPendingWord`, the only one a new counter can have), as a service that reads the table as
  // its body schema does.
  counterOmittedFields: 'offer-terms' | 'defaults' | 'required' | 'all';
  // PATCH /offer-requests/{id} ("same shape as the create body"; "only these values can be
  // updated"; what other fields do is not shown): only the updatable fields, others refused with 400
  // (ours); `create-shape`: the body checked as a create body (request and the property's required
  // fields must be given, else 400 naming each), then only the updatable fields applied, the rest ignored.
  updateBodyShape: 'updatable' | 'create-shape';
  // Which property fields POST /offer-requests requires: not shown beyond six. `six` (ours), or
  // `listing-facts`: BedroomsTotal, BathroomsFull, LivingArea and YearBuilt too (the facts a buyer's
  // box matches on), else 400 naming each.
  createRequiredFields: 'six' | 'listing-facts';
  // Which POST /buyer/lead fields are required: not shown. `name-and-contact` (ours): both names
  // and a way to reach the buyer, primary_email or primary_phone; `all`: every request field of the
  // spec's lead table, both contact fields and property_address.inventory_property_id too, else 400
  // naming each.
  leadRequiredFields: 'name-and-contact' | 'all';
  // What the countered offer becomes when its buyer accepts the counter (the spec: a new accepted
  // offer is created and "all other offers on the request are rejected"; whether the countered one
  // counts as "other" is not shown): rejected with the rest (ours), or left as it was listed while
  // the counter waited (`unchanged`: countered, active or rejected, per counteredOfferListedAs).
  counterAcceptedOriginalListedAs: 'rejected' | 'unchanged';
  // What a counter's `counter_offer_expires` does when it passes with no answer from the buyer (not
  // shown): nothing, the buyer may still answer (ours); or the counter lapses (status `expired`, the
  // buyer's answer refused with 409) and the countered offer is undecided again, the seller's to
  // decide (`offer-reopened`: listed as an active offer is), or runs out with it (`offer-expired`:
  // listed as an expired offer is, per expiredOfferListedAs). No event is sent either way.
  counterLapse: 'never' | 'offer-reopened' | 'offer-expired';
  // Whether the seller may still accept an offer whose counter waits on its buyer (not shown: the
  // spec's table accepts only an `active` offer and has no countered status). `reject-only` (ours):
  // it may be rejected, which ends the counter, but an accept is refused with 409; `accept-too`: an
  // accept is taken, and the cascade ("every other offer and counter offer on the request becomes
  // rejected") rejects the counter waiting on it with the rest; `as-listed`: the table read
  // literally, only an offer listed `active` is decided, so a countered offer is neither accepted nor
  // rejected (409) unless counteredOfferListedAs lists it `active`, where both are taken as on any
  // active offer.
  counteredOfferDecisions: 'reject-only' | 'accept-too' | 'as-listed';
  // What the seller's reject of an offer does to a counter of theirs waiting on it (not shown: the
  // table's reject row names nothing else that happens). `ended` (ours): the counter is rejected
  // with it; `standing`: it waits on its buyer still, who may accept it (a new accepted offer, the
  // cascade) or refuse it (the UPDATE).
  counterAfterSellerReject: 'ended' | 'standing';
  // Retries and time-outs of event deliveries (not shown): a delivery answered with a non-2xx or
  // not within 5 s is tried again after 1, 2, 4, 8 and 16 s (ours, as common senders do), or
  // `once`: never tried again, as a fire-and-forget sender does, so an event sent while the
  // receiver is down or slow is lost.
  eventDelivery: 'retried' | 'once';
  // Rate limits (not shown): none (ours), or at most RATE_LIMIT_PER_SECOND API calls a second per
  // key, the rest answered 429 with a Retry-After in seconds (`per-second`) or with none
  // (`per-second-bare`), as a gateway in front of the service may do.
  rateLimit: 'none' | 'per-second' | 'per-second-bare';
  // How ids are numbered (not shown): each kind in a range of its own (ours: requests from 1001,
  // offers from 7001, counters from 9001, properties from 500001), or `from-one`: every kind counts
  // from 1, as a table's own SERIAL or IDENTITY column does, so request 3, offer 3 and counter 3 exist
  // at once and an id read as the wrong kind finds a real record.
  idSequences: 'apart' | 'from-one';
  // A create whose offer_request_external_id a request of the same account already holds (whether
  // the id must be unique is not shown): stored as another request (ours), or `refused` as an
  // impossible transition (409 under errorCodes ours, else that reading's code), naming the field and
  // the request that holds it, as a service with a unique key on (account, external id) answers.
  duplicateExternalId: 'stored' | 'refused';
}

// The steady limit of the `rateLimit` readings: half the daemon's own default pace (10 a second),
// so a busy pass meets it.
export const RATE_LIMIT_PER_SECOND = 5;

export const DEFAULT_SPEC_READINGS: Readonly<SpecReadingValues> = {
  counterAnswer: 'record-201',
  counteredOfferListedAs: 'countered',
  counterRejectedCallback: 'flat',
  counterRejectedOfferListedAs: 'rejected',
  counterPendingWord: 'pending',
  counterRefusedWord: 'rejected',
  activeLimitMax: null,
  activeLimitOver: 'capped',
  pageAfterLast: 'empty',
  activeSort: 'ours',
  activeListShape: 'ours',
  trailingSlash: 'either',
  externalIdAt: 'request',
  prelimAnswer: 'buyer_count',
  offersQuery: 'params',
  offersOrder: 'made',
  createAnswer: 'record-201',
  decideAnswer: 'record-200',
  updateAnswer: 'empty-204',
  leadAnswer: 'record-201',
  errorCodes: 'ours',
  expiredOfferListedAs: 'expired',
  withdrawnOfferListedAs: 'withdrawn',
  webhookMethods: 'post-sets',
  offerNamesCounter: 'counter_offer_id',
  counterOfferFlag: 'set',
  offerDecidedAt: 'filled',
  maxMediaItems: MEDIA_MAX_ITEMS,
  authorizationForm: 'either',
  timestampFormat: 'utc',
  offerListShape: 'ours',
  eventContentType: 'json',
  counterOmittedFields: 'offer-terms',
  updateBodyShape: 'updatable',
  createRequiredFields: 'six',
  leadRequiredFields: 'name-and-contact',
  counterAcceptedOriginalListedAs: 'rejected',
  eventDelivery: 'retried',
  counterLapse: 'never',
  rateLimit: 'none',
  counteredOfferDecisions: 'reject-only',
  counterAfterSellerReject: 'ended',
  idSequences: 'apart',
  duplicateExternalId: 'stored',
};

export const SPEC_READING_CHOICES: {
  [K in keyof SpecReadingValues]: readonly SpecReadingValues[K][] | 'limit' | 'media-count';
} = {
  counterAnswer: ['record-201', 'empty-204', 'empty-200', 'id-only-200'],
  counteredOfferListedAs: ['countered', 'counter_offered', 'active', 'rejected'],
  counterRejectedCallback: [
    'flat',
    'nested',
    'offer-only',
    'none',
    'named-event',
    'patch-no-event',
    'string-ids',
  ],
  counterRejectedOfferListedAs: ['rejected', 'active', 'countered'],
  counterPendingWord: ['pending', 'open'],
  counterRefusedWord: ['rejected', 'declined', 'buyer_rejected'],
  activeLimitMax: 'limit',
  activeLimitOver: ['capped', 'refused'],
  pageAfterLast: ['empty', '404', '400'],
  activeSort: ['ours', 'requested-at', 'default-only', 'ignored'],
  activeListShape: ['ours', 'declared', 'no-external-id'],
  trailingSlash: ['either', 'redirect'],
  externalIdAt: ['request', 'body'],
  prelimAnswer: ['buyer_count', 'buyers', 'nested', 'empty'],
  offersQuery: ['params', 'ignored', 'capped-25', 'max-100', 'paging-only', 'refused'],
  offersOrder: ['made', 'newest-first', 'updated-last'],
  createAnswer: [
    'record-201',
    'declared-201',
    'record-200',
    'id-only-201',
    'id-only-200',
    'no-status',
    'status-processing',
    'status-active',
  ],
  decideAnswer: ['record-200', 'empty-204'],
  updateAnswer: ['empty-204', 'record-200'],
  leadAnswer: ['record-201', 'record-200'],
  errorCodes: ['ours', 'all-422', 'all-400', 'key-400', 'key-403-bare'],
  expiredOfferListedAs: ['expired', 'dropped', 'rejected', 'active'],
  withdrawnOfferListedAs: ['withdrawn', 'cancelled', 'dropped'],
  webhookMethods: ['post-sets', 'post-once', 'patch-422-when-none'],
  offerNamesCounter: ['counter_offer_id', 'unnamed'],
  counterOfferFlag: ['set', 'null'],
  offerDecidedAt: ['filled', 'null'],
  maxMediaItems: 'media-count',
  authorizationForm: ['either', 'key-only', 'bearer-only'],
  timestampFormat: ['utc', 'offset', 'postgres'],
  offerListShape: ['ours', 'without-webhook-fields'],
  eventContentType: ['json', 'text-plain', 'form'],
  counterOmittedFields: ['offer-terms', 'defaults', 'required', 'all'],
  updateBodyShape: ['updatable', 'create-shape'],
  createRequiredFields: ['six', 'listing-facts'],
  leadRequiredFields: ['name-and-contact', 'all'],
  counterAcceptedOriginalListedAs: ['rejected', 'unchanged'],
  eventDelivery: ['retried', 'once'],
  counterLapse: ['never', 'offer-reopened', 'offer-expired'],
  counteredOfferDecisions: ['reject-only', 'accept-too', 'as-listed'],
  counterAfterSellerReject: ['ended', 'standing'],
  rateLimit: ['none', 'per-second', 'per-second-bare'],
  idSequences: ['apart', 'from-one'],
  duplicateExternalId: ['stored', 'refused'],
};

// A partial set of readings, checked: each key known, each value one of its choices.
export function parseSpecReadings(body: unknown, source: string): Partial<SpecReadingValues> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest(`${source} must be a JSON object of spec readings`);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    // Own keys only: `__proto__` or `constructor` would find Object.prototype's, and answer 500.
    const choices = Object.hasOwn(SPEC_READING_CHOICES, key)
      ? SPEC_READING_CHOICES[key as keyof SpecReadingValues]
      : undefined;
    if (choices === undefined)
      throw badRequest(
        `${source}: ${key} is not a spec reading; known: ${Object.keys(SPEC_READING_CHOICES).join(', ')}`,
      );
    if (choices === 'limit') {
      if (value !== null && !(Number.isInteger(value) && (value as number) >= 1))
        throw badRequest(`${source}: ${key} must be null (no cap) or a whole number of at least 1`);
    } else if (choices === 'media-count') {
      if (!(Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MEDIA_MAX_ITEMS))
        throw badRequest(`${source}: ${key} must be a whole number from 1 to ${MEDIA_MAX_ITEMS}`);
    } else if (!(choices as readonly unknown[]).includes(value)) {
      throw badRequest(
        `${source}: ${key} must be one of ${choices.join(', ')}; got ${JSON.stringify(value)}`,
      );
    }
    out[key] = value;
  }
  return out;
}

@Injectable()
export class SpecReadings {
  private readonly base: SpecReadingValues;
  private values: SpecReadingValues;

  // `fromEnv`: SANDBOX_SPEC_READINGS, a JSON object of readings; `given`: a starter's own (tests).
  // The control API's reset returns to them.
  constructor(fromEnv: string | undefined, given: Partial<SpecReadingValues> = {}) {
    let initial: Partial<SpecReadingValues> = {};
    if (fromEnv !== undefined && fromEnv.trim() !== '') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(fromEnv);
      } catch {
        throw new Error(`SANDBOX_SPEC_READINGS is not JSON: ${fromEnv.slice(0, 80)}`);
      }
      initial = parseSpecReadings(parsed, 'SANDBOX_SPEC_READINGS');
    }
    this.base = { ...DEFAULT_SPEC_READINGS, ...initial, ...parseSpecReadings(given, 'specReadings') };
    this.values = { ...this.base };
  }

  get current(): Readonly<SpecReadingValues> {
    return this.values;
  }

  set(partial: Partial<SpecReadingValues>): Readonly<SpecReadingValues> {
    this.values = { ...this.values, ...partial };
    return this.values;
  }

  reset(): void {
    this.values = { ...this.base };
  }
}
