import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CrmProperties } from '../../crm';
import { mapCounterFromCrm } from './counter-offer.mapper';

const FIXTURES = join(__dirname, '__fixtures__');
const read = (name: string): unknown => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));

describe('mapCounterFromCrm (golden fixtures: CRM offer record back to the spec)', () => {
  const cases = readdirSync(FIXTURES).filter((f) => f.endsWith('.input.json'));

  it('has fixtures', () => {
    expect(cases.length).toBeGreaterThanOrEqual(2);
  });

  it.each(cases)('%s', (file) => {
    const input = read(file) as { offerId: number; properties: CrmProperties };
    expect(mapCounterFromCrm(input.offerId, input.properties)).toEqual(
      read(file.replace('.input.json', '.expected.json')),
    );
  });

  it('marks the counter as a test record for a test offer or a test-mode brokerage', () => {
    const properties = { cash_offer_counter_amount: '400000' };
    expect(mapCounterFromCrm(7, properties).body.test).toBeUndefined();
    expect(mapCounterFromCrm(7, properties, { testMode: true }).body.test).toBe(true);
    const test = mapCounterFromCrm(7, { ...properties, cash_offer_offer_test: 'true' });
    expect(test.body.test).toBe(true);
    expect(test.violations).toEqual([]);
  });

  it('takes date-times as the port hands them over, ISO 8601', () => {
    const { body, violations } = mapCounterFromCrm(1, {
      cash_offer_counter_amount: '100',
      cash_offer_counter_expires: '2026-11-25T17:00:00.000Z',
    });
    expect(violations).toEqual([]);
    expect(body.counter_offer_expires).toBe('2026-11-25T17:00:00.000Z');
  });

  it('refuses a counter that has already run out, naming the field and the property', () => {
    const properties = {
      cash_offer_counter_amount: '100',
      cash_offer_counter_expires: '2026-11-25T17:00:00.000Z',
    };
    const at = (iso: string) => mapCounterFromCrm(1, properties, { nowMs: Date.parse(iso) }).violations;
    expect(at('2026-11-25T16:59:59.000Z')).toEqual([]);
    expect(at('2026-11-25T17:00:00.000Z')).toEqual([
      {
        field: 'counter_offer_expires',
        message:
          'counter_offer_expires 2026-11-25T17:00:00.000Z has passed; set a later time (offer record property cash_offer_counter_expires)',
      },
    ]);
  });
});
