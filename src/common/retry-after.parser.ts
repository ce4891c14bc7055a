// Retry-After is either delay-seconds or an HTTP-date (RFC 9110 §10.2.3). Returns milliseconds
// to wait from `nowMs`, or undefined when the header is absent or unreadable.
export function parseRetryAfter(value: unknown, nowMs: number): number | undefined {
  const raw = Array.isArray(value) ? (value[0] as unknown) : value;
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  const text = String(raw).trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  // An HTTP date always names a weekday or month; anything else ("-4") is unreadable.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
