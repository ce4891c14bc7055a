import type { SpecReadingValues } from './spec-readings';

// The spec shows a `<timestamp>` only as "a date-time with offset". The sandbox keeps every time as
// ISO-8601 UTC (`...Z`); under the `timestampFormat` reading it writes them, in its answers and
// events, as another service would: at a US offset (`-06:00`, as a Texas service's local clock), or
// in PostgreSQL's text form of a timestamptz (a space for the `T`, microseconds, `+00`).
export type TimestampFormat = SpecReadingValues['timestampFormat'];

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
// The fields that hold times: created_at, offer_requested_at, offer_expires, counter_offer_expires,
// expiration_date and the like.
const TIME_FIELD = /(_at|_expires|^offer_expires|_date)$/;
const OFFSET_MINUTES = -6 * 60;

export function writeTimestamp(iso: string, format: TimestampFormat): string {
  if (format === 'utc' || !ISO_UTC.test(iso)) return iso;
  const ms = Date.parse(iso);
  if (format === 'offset') {
    const local = new Date(ms + OFFSET_MINUTES * 60_000).toISOString().slice(0, -1);
    const sign = OFFSET_MINUTES < 0 ? '-' : '+';
    const abs = Math.abs(OFFSET_MINUTES);
    return `${local}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  }
  const utc = new Date(ms).toISOString();
  // format === 'postgres'
  return `${utc.slice(0, 10)} ${utc.slice(11, 23)}000+00`;
}

// Every time field of an answer or event (nested objects and arrays too), written in the format.
export function writeTimestamps<T>(body: T, format: TimestampFormat): T {
  if (format === 'utc') return body;
  return rewrite(body, format) as T;
}

function rewrite(value: unknown, format: TimestampFormat, key = ''): unknown {
  if (typeof value === 'string') return TIME_FIELD.test(key) ? writeTimestamp(value, format) : value;
  if (Array.isArray(value)) return value.map((item) => rewrite(item, format));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v, format, k)]));
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
