// The text formats of the wire: calendar dates, zoned date-times, http(s) URLs, email addresses.

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// Date-times must carry a zone (Z or an offset), as the spec's timestamps do ("a date-time with
// offset"). A space may stand for the `T` (RFC 3339 section 5.6 allows it) and the offset may be
// hours alone: PostgreSQL's text form of a timestamptz, `2026-11-29 00:52:08.123456+00`.
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

// An empty address counts as none (a buyer lead may give a phone instead).
export const isEmailAddress = (value: string): boolean => value === '' || EMAIL.test(value);

export function isValidDate(value: string): boolean {
  const m = ISO_DATE.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return (
    d.getUTCFullYear() === Number(m[1]) &&
    d.getUTCMonth() === Number(m[2]) - 1 &&
    d.getUTCDate() === Number(m[3])
  );
}

export function isValidDateTime(value: string): boolean {
  return ISO_DATETIME.test(value) && !Number.isNaN(Date.parse(value));
}

export function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
