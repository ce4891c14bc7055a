import type { BrokerageConfig } from './brokerage-config.schema';
import type { ConfigProblem } from './config-error';

// Secret values resolved from the environment. Kept apart from the parsed config so that printing
// or hashing a config can never show them.
export interface BrokerageSecrets {
  cashOfferApiKey: string;
  crmToken: string;
  crmSystemKey?: string;
  webhookSecret: string;
  previousWebhookSecret?: string;
}

export type Environment = Record<string, string | undefined>;

const MIN_WEBHOOK_SECRET_LENGTH = 22; // about 128 bits of base64url

export function resolveSecrets(
  config: BrokerageConfig,
  env: Environment,
  file: string,
): { secrets?: BrokerageSecrets; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  // An optional secret is only read when its variable is named; a named variable must be set.
  const read = (path: string, name: string | undefined): string | undefined => {
    if (!name) return undefined;
    const value = env[name];
    if (value !== undefined && value.trim() !== '') return value;
    problems.push({
      file,
      brokerageId: config.id,
      path,
      message: `names the environment variable ${name}, which is not set`,
    });
    return undefined;
  };
  const cashOfferApiKey = read('cashOffer.apiKeyEnv', config.cashOffer.apiKeyEnv);
  const crmToken = read('crm.tokenEnv', config.crm.tokenEnv);
  const crmSystemKey = read('crm.systemKeyEnv', config.crm.systemKeyEnv);
  const webhookSecret = read('webhooks.secretEnv', config.webhooks.secretEnv);
  const previousWebhookSecret = read('webhooks.previousSecretEnv', config.webhooks.previousSecretEnv);
  if (webhookSecret !== undefined && webhookSecret.length < MIN_WEBHOOK_SECRET_LENGTH) {
    problems.push({
      file,
      brokerageId: config.id,
      path: 'webhooks.secretEnv',
      message: `names ${config.webhooks.secretEnv}, whose value is too short for a webhook secret (at least ${MIN_WEBHOOK_SECRET_LENGTH} random characters)`,
    });
  }
  if (problems.length > 0 || !cashOfferApiKey || !crmToken || !webhookSecret) return { problems };
  return {
    secrets: { cashOfferApiKey, crmToken, crmSystemKey, webhookSecret, previousWebhookSecret },
    problems,
  };
}

export function secretValues(secrets: BrokerageSecrets): string[] {
  return [
    secrets.cashOfferApiKey,
    secrets.crmToken,
    secrets.crmSystemKey,
    secrets.webhookSecret,
    secrets.previousWebhookSecret,
  ].filter((value): value is string => typeof value === 'string' && value.length > 0);
}
