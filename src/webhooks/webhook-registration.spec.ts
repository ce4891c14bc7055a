import type { LoadedBrokerage } from '../config/config.loader';
import {
  readRegisterWebhookPayload,
  registerWebhookCommand,
  registrationTarget,
} from './webhook-registration';

const SECRET = 'acme-secret-0123456789abcdefghij';

function brokerage(secret: string): LoadedBrokerage {
  return {
    id: 'acme',
    config: { webhooks: { publicBaseUrl: 'https://hooks.acme.test/' } },
    secrets: { webhookSecret: secret },
  } as unknown as LoadedBrokerage;
}

describe('registrationTarget', () => {
  it('builds the URL with its secret, a printable one without, and a hash that follows the secret', () => {
    const target = registrationTarget(brokerage(SECRET));
    expect(target.url).toBe(`https://hooks.acme.test/webhooks/acme/${SECRET}`);
    expect(target.printable).toBe('https://hooks.acme.test/webhooks/acme/<secret>');
    expect(target.urlHash).toMatch(/^[0-9a-f]{64}$/);
    expect(registrationTarget(brokerage(`${SECRET}x`)).urlHash).not.toBe(target.urlHash);
  });
});

describe('registerWebhookCommand', () => {
  it('is keyed by brokerage and URL hash, and carries neither URL nor secret', () => {
    const { urlHash } = registrationTarget(brokerage(SECRET));
    const command = registerWebhookCommand('acme', urlHash);
    expect(command).toEqual({
      brokerageId: 'acme',
      idempotencyKey: `acme:webhook%3Aacme:register_webhook%3A${urlHash}`,
      operation: 'register_webhook',
      recordRef: 'webhook:acme',
      payload: { brokerageId: 'acme', urlHash },
    });
    expect(JSON.stringify(command)).not.toContain(SECRET);
    expect(registerWebhookCommand('acme', urlHash).idempotencyKey).toBe(command.idempotencyKey);
    expect(registerWebhookCommand('acme', 'other').idempotencyKey).not.toBe(command.idempotencyKey);
  });

  it('gives a URL registered again after a done command a key of its own', () => {
    const first = registerWebhookCommand('acme', 'h');
    const again = registerWebhookCommand('acme', 'h', 7);
    expect(again.idempotencyKey).not.toBe(first.idempotencyKey);
    expect(again.payload).toEqual(first.payload);
  });
});

describe('readRegisterWebhookPayload', () => {
  it('refuses a payload without brokerage id and URL hash', () => {
    expect(readRegisterWebhookPayload({ brokerageId: 'acme', urlHash: 'h' })).toEqual({
      brokerageId: 'acme',
      urlHash: 'h',
    });
    expect(() => readRegisterWebhookPayload({ url: 'x' })).toThrow('without brokerageId and urlHash');
  });
});
