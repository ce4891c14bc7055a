import type { Environment } from './brokerage-secrets';

// `${NAME}` and `${NAME:-default}` in a brokerage file's values, as shells and Compose files write
// them: one file can serve hosts that differ only in a port or a host name (the demo's webhook URL
// follows WEBHOOK_PORT). Secrets keep their own keys (apiKeyEnv, apiKeyFile ...), read elsewhere.
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export interface Interpolated {
  value: unknown;
  // Key path and variable of each reference to a variable that is unset and has no default.
  unset: { path: string; variable: string }[];
}

export function interpolateEnvironment(value: unknown, env: Environment, path = ''): Interpolated {
  const unset: Interpolated['unset'] = [];
  const walk = (node: unknown, at: string): unknown => {
    if (typeof node === 'string')
      return node.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
        const given = env[name];
        if (given !== undefined && given !== '') return given;
        if (fallback !== undefined) return fallback;
        unset.push({ path: at, variable: name });
        return whole;
      });
    if (Array.isArray(node)) return node.map((item, i) => walk(item, `${at}[${i}]`));
    if (node !== null && typeof node === 'object')
      return Object.fromEntries(
        Object.entries(node).map(([key, item]) => [key, walk(item, at ? `${at}.${key}` : key)]),
      );
    return node;
  };
  return { value: walk(value, path), unset };
}
