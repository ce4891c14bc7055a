import type { RemoteError } from '../../common/remote-error';
// What the agent reads on the deal: a refused key or a forbidden action is the operator's to fix,
// not the deal's.
export function refusalAdvice(error: RemoteError): string {
  if (error.code === 'AUTH_FAILED')
    return `The Cash Offer service refused this brokerage's API key or its right to create requests (${error.message}). Nothing is wrong with the deal: the operator must check the brokerage's Cash Offer key; the request is sent again once it is fixed and the deal is moved to the trigger stage again.`;
  return `The Cash Offer service refused the offer request: ${error.message}. Fix the deal and move it to the trigger stage again.`;
}
