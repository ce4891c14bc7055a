import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SandboxAccount, SandboxRole } from './sandbox.types';

export const DEFAULT_AGENT_KEY = 'sandbox-agent-key';
export const DEFAULT_BUYER_KEY = 'sandbox-buyer-key';
const ROLES: readonly SandboxRole[] = ['listing_agent', 'partner', 'buyer'];

// Found from the source tree (sandbox/cash-offer) and from the compiled file (dist/sandbox/cash-offer) alike.
function findAccountsFile(): string | undefined {
  const candidates = [
    join(process.cwd(), 'config', 'sandbox-accounts.json'),
    join(__dirname, '..', '..', 'config', 'sandbox-accounts.json'),
    join(__dirname, '..', '..', '..', 'config', 'sandbox-accounts.json'),
  ];
  return candidates.find((path) => existsSync(path));
}

function checkAccount(value: unknown, where: string): SandboxAccount {
  const a = value as Partial<SandboxAccount>;
  for (const field of ['key', 'userId', 'email'] as const) {
    if (typeof a?.[field] !== 'string' || a[field] === '')
      throw new Error(`${where}: account field "${field}" must be non-empty text`);
  }
  if (!ROLES.includes(a.role as SandboxRole))
    throw new Error(`${where}: account role must be one of ${ROLES.join(', ')}; got ${String(a.role)}`);
  return { key: a.key!, role: a.role!, userId: a.userId!, email: a.email!, name: a.name };
}

// Accounts from config/sandbox-accounts.json; the first listing agent and the first buyer take
// their keys from SANDBOX_AGENT_KEY / SANDBOX_BUYER_KEY when those are set.
export function loadSandboxAccounts(env: NodeJS.ProcessEnv = process.env): SandboxAccount[] {
  const file = findAccountsFile();
  const raw: unknown = file ? JSON.parse(readFileSync(file, 'utf8')) : { accounts: [] };
  const list = (raw as { accounts?: unknown }).accounts;
  if (!Array.isArray(list)) throw new Error(`${file}: expected { "accounts": [ ... ] }`);
  const accounts = list.map((a, i) => checkAccount(a, `${file} accounts[${i}]`));
  const agent = accounts.find((a) => a.role === 'listing_agent');
  const buyer = accounts.find((a) => a.role === 'buyer');
  const agentKey = env.SANDBOX_AGENT_KEY || agent?.key || DEFAULT_AGENT_KEY;
  const buyerKey = env.SANDBOX_BUYER_KEY || buyer?.key || DEFAULT_BUYER_KEY;
  if (agent) agent.key = agentKey;
  else
    accounts.unshift({
      key: agentKey,
      role: 'listing_agent',
      userId: '7f1c2a8e-0c4b-4b7e-9d1a-5e2f3a4b5c6d',
      email: 'agent@sandbox.example',
      name: 'Sandbox Listing Agent',
    });
  if (buyer) buyer.key = buyerKey;
  else
    accounts.push({
      key: buyerKey,
      role: 'buyer',
      userId: '2b9d4e6f-1a3c-4d5e-8f70-1a2b3c4d5e6f',
      email: 'buyer@sandbox.example',
      name: 'Sandbox Buyer',
    });
  return accounts;
}
