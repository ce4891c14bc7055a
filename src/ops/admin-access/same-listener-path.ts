// Where to send a browser after it signs in: only a path of this listener, never another site (no
// open redirect). Read as a browser reads a Location, so `/\evil.example`, `/<tab>/evil.example` and
// the like, which browsers take for `//evil.example`, are refused as well as `//` and absolute URLs.
const HERE = 'http://admin.invalid';

export function sameListenerPath(next: string | undefined, fallback = '/console'): string {
  if (!next || !next.startsWith('/')) return fallback;
  let url: URL;
  try {
    url = new URL(next, HERE);
  } catch {
    return fallback;
  }
  return url.origin === HERE ? `${url.pathname}${url.search}${url.hash}` : fallback;
}
