// The quickstart writes `PATCH /offers/` where the reference writes `/offers`: a service whose routes
// end in a slash (or do not) may answer the other form with a redirect to its own, as several web
// frameworks do by default. The client follows such a redirect, and only such a one: to the same
// origin, the same path but for a trailing slash, the same query. Any other redirect is an answer
// (it could carry the key to another host). 307 and 308 keep the method and body; 301, 302 and 303
// are followed for a GET only.

const KEEPS_METHOD = new Set([307, 308]);
const GET_ONLY = new Set([301, 302, 303]);

// The path (relative to `baseUrl`, without the query, which stays as it was) to send the request to
// again, or undefined. `requestPath` carries the request's query string.
export function slashRedirectTarget(
  baseUrl: string,
  requestPath: string,
  method: string,
  status: number,
  location: unknown,
): string | undefined {
  if (!(KEEPS_METHOD.has(status) || (GET_ONLY.has(status) && method === 'GET'))) return undefined;
  if (typeof location !== 'string' || location === '') return undefined;
  const base = new URL(baseUrl);
  const asked = new URL(`${base.href.replace(/\/+$/, '')}${requestPath}`);
  let target: URL;
  try {
    target = new URL(location, asked);
  } catch {
    return undefined;
  }
  if (target.origin !== asked.origin || target.search !== asked.search) return undefined;
  const trimmed = (path: string) => path.replace(/\/+$/, '');
  if (trimmed(target.pathname) !== trimmed(asked.pathname) || target.pathname === asked.pathname)
    return undefined;
  const basePath = trimmed(base.pathname);
  if (!target.pathname.startsWith(`${basePath}/`)) return undefined;
  return target.pathname.slice(basePath.length);
}
