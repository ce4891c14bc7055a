import { CrmError } from './crm.error';

// How many times a create whose answer was lost, and which a look then did not find, is made again.
const MAKE_AGAIN = 2;

// A create that must not be made twice (setup-crm's fields, groups, pipelines and stages), behind a
// CRM that may lose the answer after it stored the call (a gateway's 502, a timeout): an
// OUTCOME_UNKNOWN is looked for first. Found, it was made; provably absent, it is made again (a few
// times, as a transient 5xx before the CRM acted would have been retried); still failing, the error
// stands, and running setup-crm again makes it (setup looks before it makes).
export async function madeOrFound<T>(make: () => Promise<T>, find: () => Promise<T | undefined>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await make();
    } catch (error) {
      if (!(error instanceof CrmError && error.code === 'OUTCOME_UNKNOWN')) throw error;
      const found = await find();
      if (found !== undefined) return found;
      if (attempt >= MAKE_AGAIN) throw error;
    }
  }
}
