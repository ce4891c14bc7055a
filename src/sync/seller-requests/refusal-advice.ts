import { fieldsNamed } from '../../cash-offer/fields-named';
import type { RemoteError } from '../../common/remote-error';
import type { CrmFieldMapping } from '../../crm/mapping/crm-field-mapping';
import { credentialsRefused } from '../outbox/outbox-decision';
import { whereAgentFixes } from './offer-request.mapper';

// What the agent reads on the deal: a refused key or a forbidden action is the operator's to fix,
// not the deal's. A refusal of the key itself leaves the request waiting for it (outbox-decision.ts),
// so nothing more is asked of the agent; another refusal ends the command, so the deal is sent again
// by moving it back to the trigger stage.
export function refusalAdvice(error: RemoteError, mapping?: CrmFieldMapping): string {
  if (error.code === 'AUTH_FAILED') {
    const then = credentialsRefused(error)
      ? 'the request is sent on its own once the key works.'
      : 'once that is fixed, move the deal to the trigger stage again to send it.';
    return `The Cash Offer service refused this brokerage's API key or its right to create requests (${error.message}). Nothing is wrong with the deal: the operator must check the brokerage's Cash Offer key; ${then}`;
  }
  const where = mapping ? fieldsToFix(error.message, mapping) : [];
  const fix = where.length > 0 ? ` Where to fix it: ${where.join('; ')}.` : '';
  return `The Cash Offer service refused the offer request: ${error.message}.${fix} Fix the deal and move it to the trigger stage again.`;
}

// Which fields the service requires is not shown beyond six: a refusal may name any property field.
// Each one the refusal names, with the CRM property the agent fills for it.
function fieldsToFix(message: string, mapping: CrmFieldMapping): string[] {
  return fieldsNamed(message, Object.keys(mapping)).flatMap((field) => {
    const where = whereAgentFixes(`property.${field}`, mapping);
    return where ? [`${field} is the ${where}`] : [];
  });
}
