// Scrubs secret values (API keys, CRM tokens, webhook secrets) from log lines. The config loader
// registers every resolved secret; known sensitive keys are censored whatever their value.

export const REDACTED = '[REDACTED]';
export const SENSITIVE_KEYS = [
  'authorization',
  'apikey',
  'api_key',
  'x-api-key',
  'token',
  'accesstoken',
  'access_token',
  'secret',
  'password',
  'cookie',
  'set-cookie',
];
const MIN_SECRET_LENGTH = 6; // shorter values would scrub ordinary words

export class SecretRedactor {
  private readonly secrets = new Set<string>();
  private pattern: RegExp | undefined;

  register(...values: (string | undefined)[]): void {
    let added = false;
    for (const value of values) {
      if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH || this.secrets.has(value)) continue;
      this.secrets.add(value);
      // A secret may appear JSON-escaped or URL-encoded inside a serialized line.
      this.secrets.add(JSON.stringify(value).slice(1, -1));
      this.secrets.add(encodeURIComponent(value));
      added = true;
    }
    if (added) this.pattern = undefined;
  }

  get size(): number {
    return this.secrets.size;
  }

  redact(text: string): string {
    if (this.secrets.size === 0) return text;
    this.pattern ??= new RegExp(
      [...this.secrets]
        .sort((a, b) => b.length - a.length)
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('|'),
      'g',
    );
    return text.replace(this.pattern, REDACTED);
  }

  // Deep copy with sensitive keys censored and registered values scrubbed from every string.
  redactValue(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (value === null || typeof value !== 'object' || depth > 8) return value;
    if (Array.isArray(value)) return value.map((item) => this.redactValue(item, depth + 1));
    if (value instanceof Error) return this.redact(value.stack ?? value.message);
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = isSensitiveKey(key) ? REDACTED : this.redactValue(item, depth + 1);
    }
    return out;
  }
}

export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEYS.includes(key.toLowerCase());
}
