import { REDACTED, SecretRedactor } from './secret-redactor';

describe('SecretRedactor', () => {
  it('scrubs registered values in plain, JSON-escaped and URL-encoded form', () => {
    const redactor = new SecretRedactor();
    const secret = 'p@ss"word/with+chars';
    redactor.register(secret, undefined, 'abc');
    const text = `plain ${secret} json ${JSON.stringify(secret)} url ${encodeURIComponent(secret)}`;
    const out = redactor.redact(text);
    expect(out).not.toContain('word/with');
    expect(out).not.toContain(encodeURIComponent(secret));
    expect(out.split(REDACTED)).toHaveLength(4);
    // Values too short to be secrets are not registered (they would scrub ordinary words).
    expect(redactor.redact('abc')).toBe('abc');
  });

  it('censors sensitive keys and scrubs values in nested objects', () => {
    const redactor = new SecretRedactor();
    redactor.register('tok-123456789');
    expect(
      redactor.redactValue({
        headers: { Authorization: 'Bearer x', accept: 'json' },
        apiKey: 'k',
        nested: [{ note: 'sent tok-123456789' }],
      }),
    ).toEqual({
      headers: { Authorization: REDACTED, accept: 'json' },
      apiKey: REDACTED,
      nested: [{ note: `sent ${REDACTED}` }],
    });
  });
});
