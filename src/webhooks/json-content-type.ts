// The webhook listener takes JSON only (the spec: "an HTTP POST with a JSON body"): a body declared
// as anything else (text/plain, a form) is refused with 415 before it is read as an event. A
// delivery that declares no type at all is read as JSON, as the spec says it is.
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return true;
  const type = header.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}
