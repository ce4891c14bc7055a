import { writeTimestamp, writeTimestamps } from './timestamp-format';

describe('timestamp-format (the timestampFormat spec reading)', () => {
  const at = '2026-11-29T00:52:08.123Z';

  it.each([
    ['utc', at],
    ['offset', '2026-11-28T18:52:08.123-06:00'],
    ['postgres', '2026-11-29 00:52:08.123000+00'],
  ] as const)('%s writes %s, the same instant', (format, written) => {
    expect(writeTimestamp(at, format)).toBe(written);
    expect(Date.parse(written)).toBe(Date.parse(at));
  });

  it('rewrites the time fields of an answer, nested and in arrays, and nothing else', () => {
    const answer = [
      {
        request: { offer_requested_at: at, offer_request_expires_at: null, note: at },
        offer_expires: at,
        counter_offer_expires: at,
        expiration_date: at,
        memo: at,
      },
    ];
    expect(writeTimestamps(answer, 'offset')).toEqual([
      {
        request: {
          offer_requested_at: '2026-11-28T18:52:08.123-06:00',
          offer_request_expires_at: null,
          note: at,
        },
        offer_expires: '2026-11-28T18:52:08.123-06:00',
        counter_offer_expires: '2026-11-28T18:52:08.123-06:00',
        expiration_date: '2026-11-28T18:52:08.123-06:00',
        memo: at,
      },
    ]);
    expect(writeTimestamps(answer, 'utc')).toBe(answer);
  });
});
