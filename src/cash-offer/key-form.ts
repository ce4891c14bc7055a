// The spec writes the Authorization header's value as `<API_KEY>`, "with no prefix shown". A service
// may still want `Bearer <key>` (as many API-key services do), or refuse the prefix. The key is sent
// as the operator configured it; when the service refuses it, the other way of writing it is tried
// once, and kept when the service takes it (docs/spec-decisions.md, "Other readings").
export type KeyForm = 'as-configured' | 'other';

const BEARER = /^Bearer\s+/i;

export function authorizationHeader(apiKey: string, form: KeyForm): string {
  if (form === 'as-configured') return apiKey;
  return BEARER.test(apiKey) ? apiKey.replace(BEARER, '') : `Bearer ${apiKey}`;
}

export function otherKeyForm(form: KeyForm): KeyForm {
  return form === 'as-configured' ? 'other' : 'as-configured';
}

// How the header is written under a form, for the operator's log (never the key itself).
export function describeKeyForm(apiKey: string, form: KeyForm): string {
  return BEARER.test(authorizationHeader(apiKey, form)) ? '"Bearer <key>"' : 'as the key alone';
}
