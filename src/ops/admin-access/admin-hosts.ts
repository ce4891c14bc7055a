import { hostname, networkInterfaces } from 'node:os';
import { isLoopbackHost } from '../../config/daemon-environment';

// The host names the admin listener answers to: loopback names, the address it is bound to, this
// machine's name and addresses when bound to all of them, and ADMIN_ALLOWED_HOSTS. A request whose
// `Host` is anything else (a DNS-rebinding page's name) is refused.
export function adminHostNames(boundHost: string, allowed: readonly string[]): Set<string> {
  const names = new Set(['localhost', '127.0.0.1', '::1', ...allowed.map((h) => h.toLowerCase())]);
  const bound = boundHost.trim().toLowerCase();
  if (bound === '0.0.0.0' || bound === '::') {
    names.add(hostname().toLowerCase());
    for (const list of Object.values(networkInterfaces()))
      for (const address of list ?? []) names.add(address.address.toLowerCase());
  } else {
    names.add(bound);
  }
  return names;
}

// The name part of a Host header (`name:port`, `[v6]:port`).
export function hostNameOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  return h.split(':')[0];
}

export function isAllowedHost(header: string | undefined, names: ReadonlySet<string>): boolean {
  const name = hostNameOf(header);
  return name !== undefined && (names.has(name) || isLoopbackHost(name));
}
