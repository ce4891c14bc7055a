import { fieldsNamed } from '../../cash-offer/fields-named';
import type { CounterOfferBody, Offer } from '../../cash-offer/schema';
import { COUNTER_OFFER_FIELDS, COUNTER_TERM_OF_OFFER as TERM_OF_OFFER } from '../../cash-offer/schema';
import { isAnsweredCounter } from '../offers/offer-record.view';

// The spec shows which counter fields exist but not which are required, nor what a service makes
// of one left out (docs/spec-decisions.md, "Other readings"). A service may keep the countered
// offer's term, store its column's default (false, 0: a listing commission of 0 %), or refuse the
// counter. So the terms the agent left empty are sent as the countered offer has them: the counter
// then means the same under every reading.

type CounterTerm = keyof typeof TERM_OF_OFFER;
const TERMS = Object.keys(TERM_OF_OFFER) as CounterTerm[];

// The offer's value for a counter term, when it is one the counter may carry (a boolean, or a
// number of at least 0); a missing or null term is left out.
function offerTerm(offer: Offer, term: CounterTerm): boolean | number | undefined {
  const value = (offer as unknown as Record<string, unknown>)[TERM_OF_OFFER[term]];
  if (COUNTER_OFFER_FIELDS[term].type === 'boolean') return typeof value === 'boolean' ? value : undefined;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

// The counter with every term the agent left empty as the countered offer has it.
export function withOfferTerms(body: CounterOfferBody, offer: Offer | undefined): CounterOfferBody {
  if (!offer) return body;
  const filled: Record<string, unknown> = { ...body };
  for (const term of TERMS) {
    if (filled[term] !== undefined) continue;
    const value = offerTerm(offer, term);
    if (value !== undefined) filled[term] = value;
  }
  return filled as unknown as CounterOfferBody;
}

// The word a counter carries where the service requires `counter_offer_status` (the spec lists it
// among the counter's body fields and shows none of its words): the one the service has asked for,
// else "pending", the word a counter waiting on its buyer has in most APIs.
export const DEFAULT_COUNTER_STATUS_WORD = 'pending';

// Fields the service may require that neither the agent nor the offer gave.
function neutralValue(field: string, offer: Offer | undefined, statusWord: string): unknown {
  if (field in TERM_OF_OFFER) {
    const value = offer ? offerTerm(offer, field as CounterTerm) : undefined;
    if (value !== undefined) return value;
    return COUNTER_OFFER_FIELDS[field].type === 'boolean' ? false : 0;
  }
  switch (field) {
    case 'counter_offer_memo':
      return '';
    case 'counter_offer_expires':
      return typeof offer?.offer_expires === 'string' ? offer.offer_expires : undefined;
    case 'counter_offer_terms': {
      const terms = offer?.additional_terms;
      return typeof terms === 'object' && terms !== null && !Array.isArray(terms) ? terms : {};
    }
    case 'test':
      return false;
    case 'counter_offer_status':
      return statusWord;
    default:
      return undefined;
  }
}

// The counter fields a refusal names that the body does not carry: a service that requires them
// says so in its message, whatever its words ("counter_offer_memo is required", "must have required
// property 'counter_offer_memo'", "missing counter_offer_memo").
export function missingFieldsNamed(body: CounterOfferBody, message: string): string[] {
  const sent = body as unknown as Record<string, unknown>;
  return fieldsNamed(message, Object.keys(COUNTER_OFFER_FIELDS)).filter((field) => sent[field] === undefined);
}

// The counter again with the fields a refusal named as missing, filled from the offer or with a
// neutral value (false, 0, an empty memo, the offer's expiry and terms); undefined when the refusal
// names none it can fill, so the refusal stands.
export function withNamedFieldsFilled(
  body: CounterOfferBody,
  offer: Offer | undefined,
  message: string,
  statusWord: string = DEFAULT_COUNTER_STATUS_WORD,
): { body: CounterOfferBody; filled: string[] } | undefined {
  return withFieldsFilled(body, offer, missingFieldsNamed(body, message), statusWord);
}

// The word a refusal asks `counter_offer_status` to be when it refuses the one sent ('may only be
// "open"', "must be one of: 'open'"): the first quoted word that is no buyer's answer and not the
// word sent; undefined when the refusal is not about the status or names no such word.
export function counterStatusWordAsked(body: CounterOfferBody, message: string): string | undefined {
  const sent = (body as unknown as Record<string, unknown>).counter_offer_status;
  if (typeof sent !== 'string' || fieldsNamed(message, ['counter_offer_status']).length === 0)
    return undefined;
  for (const [, word] of message.matchAll(/["'`\u201c\u2018]([A-Za-z][A-Za-z_-]{0,39})["'`\u201d\u2019]/g))
    if (word !== sent && word !== 'counter_offer_status' && !isAnsweredCounter(word)) return word;
  return undefined;
}

// The counter with these fields filled where it leaves them out (fields the service required of an
// earlier counter, so this one goes complete the first time); undefined when none could be.
export function withFieldsFilled(
  body: CounterOfferBody,
  offer: Offer | undefined,
  fields: readonly string[],
  statusWord: string = DEFAULT_COUNTER_STATUS_WORD,
): { body: CounterOfferBody; filled: string[] } | undefined {
  const filled: Record<string, unknown> = { ...body };
  const names: string[] = [];
  for (const field of fields) {
    if (filled[field] !== undefined) continue;
    const value = neutralValue(field, offer, statusWord);
    if (value === undefined) continue;
    filled[field] = value;
    names.push(field);
  }
  return names.length > 0 ? { body: filled as unknown as CounterOfferBody, filled: names } : undefined;
}
