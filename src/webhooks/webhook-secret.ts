import { createHash, timingSafeEqual } from 'node:crypto';

// Compares in constant time; hashing first makes the lengths equal, so length leaks nothing either.
export function secretsMatch(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export interface BrokerageWebhookSecrets {
  current: string;
  // Accepted alongside the current one until `previousValidUntil`, so a rotation loses no delivery.
  previous?: string;
  previousValidUntil?: Date;
}

export function isAcceptedSecret(presented: string, secrets: BrokerageWebhookSecrets, now: Date): boolean {
  // Both comparisons always run, so the answer time does not tell which secret matched.
  const current = secretsMatch(presented, secrets.current);
  const previousStillValid =
    secrets.previous !== undefined &&
    (!secrets.previousValidUntil || now.getTime() < secrets.previousValidUntil.getTime());
  const previous = secretsMatch(presented, secrets.previous ?? secrets.current) && previousStillValid;
  return current || previous;
}

export function webhookPath(brokerageId: string, secret: string): string {
  return `/webhooks/${encodeURIComponent(brokerageId)}/${secret}`;
}

// The public URL the service is told to call; it carries the secret, so it is never logged.
export function webhookUrl(publicBaseUrl: string, brokerageId: string, secret: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${webhookPath(brokerageId, secret)}`;
}
