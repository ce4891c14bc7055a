import { isValidDateTime } from './wire-formats';

describe('isValidDateTime: "a date-time with offset", however a service writes it', () => {
  it.each([
    '2026-11-29T00:52:08.123Z',
    '2026-11-29T00:52:08Z',
    '2026-11-28T18:52:08.123-06:00',
    '2026-11-29T00:52:08.123456+00:00',
    '2026-11-29T00:52:08+0000',
    // PostgreSQL's text form of a timestamptz (RFC 3339 lets a space stand for the T).
    '2026-11-29 00:52:08.123456+00',
    '2026-11-29 00:52:08-06',
  ])('takes %s', (value) => {
    expect(isValidDateTime(value)).toBe(true);
  });

  it.each([
    '2026-11-29T00:52:08',
    '2026-11-29',
    '1795913528',
    'soon',
    '2026-11-29T25:99:00Z',
    '2026-11-29X00:52:08Z',
  ])('refuses %s (no zone, no time, or no date-time at all)', (value) => {
    expect(isValidDateTime(value)).toBe(false);
  });
});
