import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parse } from 'yaml';
import type { Environment } from '../src/config/brokerage-secrets';
import { DEFAULT_AGENT_KEY } from '../sandbox/cash-offer/accounts.loader';
import { DEFAULT_FUB_EMULATOR_API_KEY, DEFAULT_FUB_EMULATOR_SYSTEM_KEY } from '../sandbox/followupboss';
import { DEFAULT_HUBSPOT_EMULATOR_TOKEN } from '../sandbox/hubspot';

// The second listing agent of config/sandbox-accounts.json.
const SECOND_AGENT_KEY = 'sandbox-agent2-key';

interface RawBrokerage {
  id?: unknown;
  enabled?: unknown;
  simulated?: unknown;
  cashOffer?: { apiKeyEnv?: unknown };
  crm?: { kind?: unknown; tokenEnv?: unknown; systemKeyEnv?: unknown };
  webhooks?: { secretEnv?: unknown };
}

// Brokerage files marked `simulated: true` (and enabled), read before validation so their secret
// variables can get defaults; the real loader validates everything afterwards.
export function findSimulatedBrokerages(configDir: string): { id: string; raw: RawBrokerage }[] {
  let files: string[];
  try {
    files = readdirSync(configDir).filter((f) => ['.yaml', '.yml', '.json'].includes(extname(f)));
  } catch {
    return [];
  }
  const found: { id: string; raw: RawBrokerage }[] = [];
  for (const file of files) {
    let raw: RawBrokerage;
    try {
      raw = parse(readFileSync(join(configDir, file), 'utf8')) as RawBrokerage;
    } catch {
      continue; // the loader reports the broken file
    }
    if (raw?.simulated !== true || raw.enabled === false || typeof raw.id !== 'string') continue;
    found.push({ id: raw.id, raw });
  }
  return found;
}

// The simulators' own credentials for the variables a simulated brokerage names, where unset. The
// webhook secret is fixed per brokerage so the daemon and the CLI agree on the registered URL; it
// guards nothing but a demo on this machine. The result reads through to `env`, so later changes
// to it (tests, reloads) are still seen.
export function withSimulatorDefaults(configDir: string, env: Environment): Environment {
  const defaults: Record<string, string> = {};
  const setDefault = (name: unknown, value: string): void => {
    if (typeof name === 'string') defaults[name] = value;
  };
  for (const { id, raw } of findSimulatedBrokerages(configDir)) {
    // A simulated Follow Up Boss brokerage is the sandbox's second agent: one account has one webhook
    // URL, so two demo brokerages on one account would take each other's events.
    setDefault(
      raw.cashOffer?.apiKeyEnv,
      raw.crm?.kind === 'followupboss'
        ? env.SANDBOX_AGENT2_KEY || SECOND_AGENT_KEY
        : env.SANDBOX_AGENT_KEY || DEFAULT_AGENT_KEY,
    );
    if (raw.crm?.kind === 'followupboss') {
      setDefault(raw.crm.tokenEnv, env.FUB_EMULATOR_API_KEY || DEFAULT_FUB_EMULATOR_API_KEY);
      setDefault(raw.crm.systemKeyEnv, env.FUB_EMULATOR_SYSTEM_KEY || DEFAULT_FUB_EMULATOR_SYSTEM_KEY);
    } else setDefault(raw.crm?.tokenEnv, env.HUBSPOT_EMULATOR_TOKEN || DEFAULT_HUBSPOT_EMULATOR_TOKEN);
    setDefault(raw.webhooks?.secretEnv, `simulated-webhook-secret-of-${id}`);
  }
  if (Object.keys(defaults).length === 0) return env;
  return new Proxy(env, {
    get: (target, name) => {
      const value = typeof name === 'string' ? target[name] : undefined;
      return value === undefined || value === ''
        ? typeof name === 'string'
          ? defaults[name]
          : undefined
        : value;
    },
  });
}
