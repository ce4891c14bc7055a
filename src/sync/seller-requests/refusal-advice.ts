import type { RemoteError } from '../../common/remote-error';
import { credentialsRefused } from '../outbox/outbox-decision';

// What the agent reads on the deal: a refused key or a forbidden action is the operator's to fix,
// not the deal's. A refusal of the key itself leaves the request waiting for it (outbox-decision.ts),
// so nothing more is asked of the agent; another refusal ends the command, so the deal is sent again
// by moving it back to the trigger stage.
export function refusalAdvice(error: RemoteError): string {
  if (error.code === 'AUTH_FAILED') {
    const then = credentialsRefused(error)
      ? 'the request is sent on its own once the key works.'
      : 'once that is fixed, move the deal to the trigger stage again to send it.';
    return `The Cash Offer service refused this brokerage's API key or its right to create requests (${error.message}). Nothing is wrong with the deal: the operator must check the brokerage's Cash Offer key; ${then}`;
  }
  return `The Cash Offer service refused the offer request: ${error.message}. Fix the deal and move it to the trigger stage again.`;
}
