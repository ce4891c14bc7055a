import { CashOfferError } from '../cash-offer/cash-offer.error';
import { CrmError } from '../crm/crm.error';
import { probeVerdict } from './credential-probe';

const serviceError = (status: number, code: 'AUTH_FAILED' | 'UNAVAILABLE' = 'AUTH_FAILED') =>
  new CashOfferError({
    code,
    operation: 'GET /active-offer-requests',
    status,
    message: `answered ${status}`,
  });

describe('probeVerdict', () => {
  it.each([
    ['the service answers the probe', 'cash-offer', { ok: true }, 'accepted'],
    ['the service answers 401', 'cash-offer', { error: serviceError(401) }, 'refused'],
    [
      'the service answers 403 to a read every account may make',
      'cash-offer',
      { error: serviceError(403) },
      'refused',
    ],
    [
      'the service answers 400 and says the key is invalid (no code for it is shown)',
      'cash-offer',
      {
        error: new CashOfferError({
          code: 'AUTH_FAILED',
          operation: 'GET /active-offer-requests',
          status: 400,
          keyRefused: true,
          message: 'Invalid API key',
        }),
      },
      'refused',
    ],
    ['the service is down', 'cash-offer', { error: serviceError(503, 'UNAVAILABLE') }, 'unknown'],
    [
      'the CRM refuses the token',
      'crm',
      { error: new CrmError('AUTH_FAILED', 'HubSpot refused the token (401)') },
      'refused',
    ],
    ['the CRM is rate limiting', 'crm', { error: new CrmError('RATE_LIMITED', 'slow down') }, 'unknown'],
    ['a service error seen while probing the CRM', 'crm', { error: serviceError(401) }, 'unknown'],
    ['something else broke', 'crm', { error: new Error('socket hang up') }, 'unknown'],
  ] as const)('%s: %s', (_name, remote, outcome, verdict) => {
    expect(probeVerdict(remote, outcome).verdict).toBe(verdict);
  });
});
