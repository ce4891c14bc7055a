import type { IncomingHttpHeaders } from 'node:http';

// Why a post must be refused as cross-site, or undefined. A browser names where a post comes from
// (Sec-Fetch-Site, Origin); it must be the listener's own origin (`Origin: null`, a sandboxed frame
// or a file: page, is another origin too). A client that names none (curl, Prometheus) is judged
// by its credential alone. `ownHost` narrows which of the request's own hosts count.
export function crossSitePost(
  headers: IncomingHttpHeaders,
  ownHost: (host: string) => boolean = () => true,
): string | undefined {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `refused a ${site} post`;
  const origin = headers.origin;
  if (origin === undefined) return undefined;
  const refused = `refused a post from another origin (${origin.slice(0, 100)})`;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return refused;
  }
  const same = url.host === (headers.host ?? '').toLowerCase() && ownHost(url.host);
  return same ? undefined : refused;
}
