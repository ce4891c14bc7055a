import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { BrokerageConfig } from './brokerage-config.schema';
import type { ConfigProblem } from './config-error';

// Secret values resolved from the environment or from files. Kept apart from the parsed config so
// that printing or hashing a config can never show them.
export interface BrokerageSecrets {
  cashOfferApiKey: string;
  crmToken: string;
  crmSystemKey?: string;
  // HubSpot: the app's client secret (signs its webhooks).
  crmClientSecret?: string;
  webhookSecret: string;
  previousWebhookSecret?: string;
}

export type Environment = Record<string, string | undefined>;

const MIN_WEBHOOK_SECRET_LENGTH = 22; // about 128 bits of base64url

// Where one secret comes from: `<key>Env` names a variable, `<key>File` a file holding only the
// secret. Files are read at every load, so a reload picks up a rotated secret; variables are the
// process's own and only change with a restart.
interface SecretSource {
  section: string;
  key: string;
  env: string | undefined;
  file: string | undefined;
  required: boolean;
}

export function resolveSecrets(
  config: BrokerageConfig,
  env: Environment,
  file: string,
  // Relative secret file paths are read from here (the brokerage file's directory).
  baseDir = '.',
): { secrets?: BrokerageSecrets; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const problem = (path: string, message: string, hereOnly?: string): void => {
    problems.push({ file, brokerageId: config.id, path, message, ...(hereOnly ? { hereOnly } : {}) });
  };
  // A simulated brokerage's variables are filled by the embedded demo (`npm start`), not by the
  // daemon alone: say so where an operator meets the gap.
  const simulatedHint =
    config.simulated === true
      ? ' (the brokerage is marked simulated: true: `npm start` supplies it from the bundled simulators, the daemon alone does not)'
      : '';
  const read = (source: SecretSource): string | undefined => {
    const envPath = `${source.section}.${source.key}Env`;
    const filePath = `${source.section}.${source.key}File`;
    if (source.env && source.file) {
      problem(filePath, `and ${envPath} are both given; give one`);
      return undefined;
    }
    if (source.file) return readSecretFile(resolve(baseDir, source.file), filePath, problem);
    if (source.env) {
      const value = env[source.env];
      if (value !== undefined && value.trim() !== '') return value;
      problem(
        envPath,
        `names the environment variable ${source.env}, which is not set${simulatedHint}`,
        `${source.env} is not set here`,
      );
      return undefined;
    }
    if (source.required)
      problem(
        envPath,
        `is required: the NAME of an environment variable, or ${filePath}: a file holding only the secret`,
      );
    return undefined;
  };
  const { cashOffer, crm, webhooks } = config;
  const cashOfferApiKey = read({
    section: 'cashOffer',
    key: 'apiKey',
    env: cashOffer.apiKeyEnv,
    file: cashOffer.apiKeyFile,
    required: true,
  });
  const crmToken = read({
    section: 'crm',
    key: 'token',
    env: crm.tokenEnv,
    file: crm.tokenFile,
    required: true,
  });
  const crmSystemKey = read({
    section: 'crm',
    key: 'systemKey',
    env: crm.systemKeyEnv,
    file: crm.systemKeyFile,
    required: false,
  });
  const crmClientSecret = read({
    section: 'crm',
    key: 'clientSecret',
    env: crm.clientSecretEnv,
    file: crm.clientSecretFile,
    required: false,
  });
  const webhookSecret = read({
    section: 'webhooks',
    key: 'secret',
    env: webhooks.secretEnv,
    file: webhooks.secretFile,
    required: true,
  });
  const previousWebhookSecret = read({
    section: 'webhooks',
    key: 'previousSecret',
    env: webhooks.previousSecretEnv,
    file: webhooks.previousSecretFile,
    required: false,
  });
  if (webhookSecret !== undefined && webhookSecret.length < MIN_WEBHOOK_SECRET_LENGTH) {
    const [path, where] = webhooks.secretFile
      ? ['webhooks.secretFile', `the file ${webhooks.secretFile}`]
      : ['webhooks.secretEnv', String(webhooks.secretEnv)];
    // A variable's value is this process's own (another shell, or the daemon, may hold another); a
    // file's is the same for every process that can read it.
    problem(
      path,
      `names ${where}, whose value is too short for a webhook secret (at least ${MIN_WEBHOOK_SECRET_LENGTH} random characters)`,
      webhooks.secretFile ? undefined : `${String(webhooks.secretEnv)} is too short here`,
    );
  }
  if (problems.length > 0 || !cashOfferApiKey || !crmToken || !webhookSecret) return { problems };
  return {
    secrets: {
      cashOfferApiKey,
      crmToken,
      crmSystemKey,
      ...(crmClientSecret ? { crmClientSecret } : {}),
      webhookSecret,
      previousWebhookSecret,
    },
    problems,
  };
}

// The whole file is the secret; the trailing newline editors and `echo` add is not part of it.
function readSecretFile(
  path: string,
  key: string,
  problem: (path: string, message: string, hereOnly?: string) => void,
): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    // A secret mounted for the daemon alone (systemd credentials, a container's /run/secrets) or
    // readable by its user only is absent or closed to an operator's shell.
    problem(
      key,
      `names the file ${path}, which cannot be read (${code})`,
      `${path} cannot be read here (${code})`,
    );
    return undefined;
  }
  const value = text.replace(/\r?\n$/, '');
  if (value.trim() === '') {
    problem(key, `names the file ${path}, which is empty`);
    return undefined;
  }
  return value;
}

export function secretValues(secrets: BrokerageSecrets): string[] {
  return [
    secrets.cashOfferApiKey,
    secrets.crmToken,
    secrets.crmSystemKey,
    secrets.crmClientSecret,
    secrets.webhookSecret,
    secrets.previousWebhookSecret,
  ].filter((value): value is string => typeof value === 'string' && value.length > 0);
}
