import { refusesKeyOnOpenRead } from '../cash-offer';
import { CrmError } from '../crm';
import type { CredentialRemote } from '../ledger';

// What one call made with a brokerage's credentials says of them.
export type ProbeVerdict =
  | { verdict: 'accepted' }
  | { verdict: 'refused'; why: string }
  // The remote did not answer the question (down, rate limited, a breaker open): nothing learnt.
  | { verdict: 'unknown'; why: string };

export const REMOTE_NAMES: Record<CredentialRemote, string> = {
  'cash-offer': 'the Cash Offer service',
  crm: 'the CRM',
};

// Only a refusal of the credential itself counts: a 401 (the service's and both CRMs' word for a key
// they do not know) or a CRM's missing permission. The service's probe reads the active list, which
// every account may read (docs/spec-decisions.md), so a 403 there too can only be the key refused
// (a service may answer an unknown key so); elsewhere a 403 concerns a record, not the key.
export function probeVerdict(
  remote: CredentialRemote,
  outcome: { ok: true } | { error: unknown },
): ProbeVerdict {
  if ('ok' in outcome) return { verdict: 'accepted' };
  const error = outcome.error;
  if (remote === 'cash-offer' && refusesKeyOnOpenRead(error))
    return { verdict: 'refused', why: `it answered ${error.status}: ${error.message}` };
  if (error instanceof CrmError && remote === 'crm' && error.code === 'AUTH_FAILED')
    return { verdict: 'refused', why: error.message };
  return { verdict: 'unknown', why: error instanceof Error ? error.message : String(error) };
}
