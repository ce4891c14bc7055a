import { toCrmDateTime } from './crm-values';

describe('toCrmDateTime: a service time as a CRM date-time property takes it (ISO-8601 UTC)', () => {
  it.each([
    ['2026-11-29T00:52:08.123Z', '2026-11-29T00:52:08.123Z'],
    ['2026-11-28T18:52:08.123-06:00', '2026-11-29T00:52:08.123Z'],
    ['2026-11-29T00:52:08.123456+00:00', '2026-11-29T00:52:08.123Z'],
    // PostgreSQL's text form of a timestamptz.
    ['2026-11-29 00:52:08.123456+00', '2026-11-29T00:52:08.123Z'],
    ['2026-11-29T00:52:08Z', '2026-11-29T00:52:08.000Z'],
    // Epoch seconds and milliseconds, as numbers or text.
    [1795913528, '2026-11-29T00:52:08.000Z'],
    ['1795913528', '2026-11-29T00:52:08.000Z'],
    [1795913528123, '2026-11-29T00:52:08.123Z'],
    ['1795913528123', '2026-11-29T00:52:08.123Z'],
  ])('%j is written %s', (value, written) => {
    expect(toCrmDateTime(value)).toBe(written);
  });

  it.each([
    [null],
    [undefined],
    [''],
    ['  '],
    ['soon'],
    ['2026-13-45T99:00:00Z'],
    [Number.NaN],
    [{}],
    [true],
  ])('%j is left out (null), never sent as a value the CRM would refuse', (value) => {
    expect(toCrmDateTime(value)).toBeNull();
  });
});
