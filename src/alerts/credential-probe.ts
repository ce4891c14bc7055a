import { CashOfferError } from '../cash-offer';
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
// they do not know) or a CRM's missing permission. A 403 from the service concerns a record, not the key.
export function probeVerdict(
  remote: CredentialRemote,
  outcome: { ok: true } | { error: unknown },
): ProbeVerdict {
  if ('ok' in outcome) return { verdict: 'accepted' };
  const error = outcome.error;
  if (error instanceof CashOfferError && remote === 'cash-offer' && error.status === 401)
    return { verdict: 'refused', why: `it answered 401: ${error.message}` };
  if (error instanceof CrmError && remote === 'crm' && error.code === 'AUTH_FAILED')
    return { verdict: 'refused', why: error.message };
  return { verdict: 'unknown', why: error instanceof Error ? error.message : String(error) };
}
