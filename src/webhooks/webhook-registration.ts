import { createHash } from 'node:crypto';
import type { LoadedBrokerage } from '../config/config.loader';
import { outboxKey, type NewOutboxCommand } from '../ledger';
import { webhookUrl } from './webhook-secret';

// Registering a brokerage's webhook URL (POST /wh, PATCH /wh) is an outbox command like any other
// remote write, so a failure is retried with the outbox's persisted backoff and survives a restart.
export const REGISTER_WEBHOOK_OPERATION = 'register_webhook';
// The cursor stream that holds the hash of the URL last registered, never the URL: it carries the secret.
export const REGISTRATION_STREAM = 'webhook-registration';

export type RegistrationOutcome = 'registered' | 'updated' | 'already registered' | 'superseded' | 'failed';

// What the command stores: no URL and no secret, only which URL (by hash) it was queued for. The
// executor rebuilds the URL from the config at execution time.
export interface RegisterWebhookPayload {
  brokerageId: string;
  urlHash: string;
}

export interface RegistrationTarget {
  url: string;
  // The URL with its secret masked, safe to print.
  printable: string;
  urlHash: string;
}

export function registrationTarget(brokerage: LoadedBrokerage): RegistrationTarget {
  const { publicBaseUrl } = brokerage.config.webhooks;
  const url = webhookUrl(publicBaseUrl, brokerage.id, brokerage.secrets.webhookSecret);
  return {
    url,
    printable: webhookUrl(publicBaseUrl, brokerage.id, '<secret>'),
    urlHash: createHash('sha256').update(url).digest('hex'),
  };
}

export function registrationRecordRef(brokerageId: string): string {
  return `webhook:${brokerageId}`;
}

// Keyed by brokerage and URL hash, so two starts queue one command. A URL registered again after it
// was replaced (a secret rotated back) needs a new command: `after` is the done command it follows.
export function registerWebhookCommand(
  brokerageId: string,
  urlHash: string,
  after?: number,
): NewOutboxCommand {
  const recordRef = registrationRecordRef(brokerageId);
  const operation = `${REGISTER_WEBHOOK_OPERATION}:${urlHash}${after === undefined ? '' : `:after:${after}`}`;
  return {
    brokerageId,
    idempotencyKey: outboxKey(brokerageId, recordRef, operation),
    operation: REGISTER_WEBHOOK_OPERATION,
    recordRef,
    payload: { brokerageId, urlHash } satisfies RegisterWebhookPayload,
  };
}

export function readRegisterWebhookPayload(payload: unknown): RegisterWebhookPayload {
  const value = (payload ?? {}) as Partial<RegisterWebhookPayload>;
  if (typeof value.brokerageId !== 'string' || typeof value.urlHash !== 'string')
    throw new Error('a register_webhook command without brokerageId and urlHash in its payload');
  return { brokerageId: value.brokerageId, urlHash: value.urlHash };
}
