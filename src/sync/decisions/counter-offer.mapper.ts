import type { FieldViolation } from '../../cash-offer/schema';
import { COUNTER_OFFER_FIELDS, CounterOfferBody, validateWire } from '../../cash-offer/schema';
import type { CrmProperties } from '../../crm';
import { crmBoolean, crmString } from '../common/crm-values';
import { expiryMs, ranOutBy } from '../common/expiry';
import { COUNTER_INPUT, OFFER } from '../offers/offer-record.properties';

export interface CounterOfferMapping {
  body: CounterOfferBody;
  // Each names the counter field and the CRM property the agent fills.
  violations: FieldViolation[];
}

// The counter fields an agent filled on an offer record -> the POST /counter-offers body. Fields
// left empty are omitted here; the executor sends them as the countered offer has them (counter-terms.ts).
// A counter to a test offer, or from a brokerage in test mode, is a test record too.
export function mapCounterFromCrm(
  offerId: number,
  properties: CrmProperties,
  // `nowMs`: a counter that runs out before now is refused (no buyer could accept it).
  options: { testMode?: boolean; nowMs?: number } = {},
): CounterOfferMapping {
  const body: Record<string, unknown> = { offer_id: offerId };
  if (options.testMode === true || crmBoolean(crmString(properties[OFFER.test])) === true) body.test = true;
  const violations: FieldViolation[] = [];
  for (const [field, property] of Object.entries(COUNTER_INPUT)) {
    const raw = crmString(properties[property]);
    if (raw === undefined) continue;
    const converted = convert(COUNTER_OFFER_FIELDS[field].type, raw);
    if ('value' in converted) body[field] = converted.value;
    else
      violations.push({
        field,
        message: `${field} ${converted.problem} (offer record property ${property})`,
      });
  }
  const schema = validateWire(CounterOfferBody, body)
    .filter((v) => !violations.some((c) => c.field === v.field))
    .map((v) => {
      const property = COUNTER_INPUT[v.field as keyof typeof COUNTER_INPUT];
      return property ? { field: v.field, message: `${v.message} (offer record property ${property})` } : v;
    });
  const expires = expiryMs(body.counter_offer_expires as string | undefined);
  const runOut = ranOutBy(expires, options.nowMs)
    ? [
        {
          field: 'counter_offer_expires',
          message: `counter_offer_expires ${new Date(expires!).toISOString()} has passed; set a later time (offer record property ${OFFER_COUNTER_EXPIRES})`,
        },
      ]
    : [];
  return { body: body as unknown as CounterOfferBody, violations: [...violations, ...schema, ...runOut] };
}

const OFFER_COUNTER_EXPIRES = COUNTER_INPUT.counter_offer_expires;

function convert(type: string, raw: string): { value: unknown } | { problem: string } {
  switch (type) {
    case 'number': {
      const value = Number(raw.replace(/[$,\s%]/g, ''));
      return Number.isFinite(value) ? { value } : { problem: `must be a number; the CRM has "${raw}"` };
    }
    case 'boolean': {
      const value = crmBoolean(raw);
      return value === undefined ? { problem: `must be yes or no; the CRM has "${raw}"` } : { value };
    }
    case 'datetime':
      // The port hands date-times over as ISO-8601 text.
      return { value: raw };
    case 'object':
      try {
        return { value: JSON.parse(raw) as unknown };
      } catch {
        return { problem: `must be a JSON object such as {"closing_days": 21}; the CRM has "${raw}"` };
      }
    default:
      return { value: raw };
  }
}
