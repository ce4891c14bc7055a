// class-transformer's @Expose and @Transform read decorator metadata.
import 'reflect-metadata';
import { Expose, plainToInstance, Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateBy,
  validateSync,
} from 'class-validator';
import type { Environment } from './brokerage-secrets';
import { ConfigInvalidError, ENVIRONMENT, problemsFromValidation } from './config-error';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

// The defaults documented in docs/operations.md; an unset or blank variable takes its default.
export const DAEMON_DEFAULTS = {
  LEDGER_PATH: 'data/ledger.sqlite',
  ADMIN_HOST: '127.0.0.1',
  ADMIN_PORT: '3000',
  WEBHOOK_HOST: '127.0.0.1',
  WEBHOOK_PORT: '3001',
  LOG_LEVEL: 'info',
  CONFIG_DIR: 'config/brokerages',
  SHUTDOWN_TIMEOUT_MS: '25000',
  DRAIN_RUN_SECONDS: '30',
  RETENTION_DAYS: '30',
  RETENTION_DEAD_DAYS: '90',
  HISTORY_RETENTION_DAYS: '2555',
  JOB_LEASE_SECONDS: '900',
  WORKER_CONCURRENCY: '16',
  WORKER_HEARTBEAT_SECONDS: '5',
  ALERT_CHECK_SECONDS: '30',
  ALERT_RENOTIFY_MINUTES: '240',
  ALERT_JOB_FAILURES: '5',
  ALERT_JOB_FAILING_MINUTES: '15',
  ALERT_WORK_AGE_MINUTES: '30',
  ALERT_UNKNOWN_AGE_MINUTES: '60',
  ALERT_CREDENTIAL_RECHECK_MINUTES: '5',
  ALERT_DELIVERY_ATTEMPTS: '10',
} as const;
export type DaemonDefaults = { -readonly [K in keyof typeof DAEMON_DEFAULTS]?: string };

// What a variable reads as: trimmed, and its default when unset or blank.
function text(key: keyof typeof DAEMON_DEFAULTS) {
  return ({ value }: { value: unknown }): string => {
    const given = typeof value === 'string' ? value.trim() : '';
    return given === '' ? DAEMON_DEFAULTS[key] : given;
  };
}

// Several property decorators as one. Not Nest's applyDecorators: this file stays free of Nest, so
// it loads wherever the brokerage schema does (scripts, the unit tier), as the CLI reads it first.
function applyDecorators(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, property) => {
    for (const decorate of decorators) decorate(target, property);
  };
}

function Setting(key: keyof typeof DAEMON_DEFAULTS): PropertyDecorator {
  return applyDecorators(Expose(), Transform(text(key)));
}

// A whole number leaves the transform as a number; anything else stays text, so the message quotes
// what the operator wrote.
function IntegerSetting(key: keyof typeof DAEMON_DEFAULTS, min: number, max: number): PropertyDecorator {
  const message = `$property must be an integer from ${min} to ${max}, got "$value"`;
  return applyDecorators(
    Expose(),
    Transform((params) => {
      const value = text(key)(params);
      return /^-?\d+$/.test(value) ? Number(value) : value;
    }),
    IsInt({ message }),
    Min(min, { message }),
    Max(max, { message }),
  );
}

// One listener used to serve everything; a deployment still setting it would silently expose
// /metrics on the old port's replacement, so it is refused with the new names.
function Retired(suffix: 'HOST' | 'PORT', what: string): PropertyDecorator {
  return applyDecorators(
    Expose(),
    ValidateBy({
      name: 'retired',
      validator: {
        validate: (value: unknown) => value === undefined,
        defaultMessage: () =>
          `$property is no longer read: set ADMIN_${suffix} (health, metrics) and WEBHOOK_${suffix} (${what}) instead`,
      },
    }),
  );
}

// Webhooks and admin routes each have their own listener (port 0: any free port, for each).
function DiffersFromAdminPort(): PropertyDecorator {
  return ValidateBy({
    name: 'differsFromAdminPort',
    validator: {
      validate: (value: unknown, args) => {
        const admin = (args?.object as DaemonEnvironment).ADMIN_PORT;
        return admin === 0 || value !== admin;
      },
      defaultMessage: (args) =>
        `$property must differ from ADMIN_PORT (${String((args?.object as DaemonEnvironment).ADMIN_PORT)}): webhooks and admin routes have their own listeners`,
    },
  });
}

// Loopback names and addresses: an admin listener bound there is reachable from this machine only.
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

// Optional text: trimmed, undefined when unset or blank.
function OptionalText(): PropertyDecorator {
  return applyDecorators(
    Expose(),
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined,
    ),
  );
}

// The admin listener serves the console's actions (pause, run, replay): bound beyond loopback, it
// needs a credential.
function CredentialBeyondLoopback(): PropertyDecorator {
  return ValidateBy({
    name: 'credentialBeyondLoopback',
    validator: {
      validate: (value: unknown, args) => {
        const env = args?.object as DaemonEnvironment;
        return (
          typeof value !== 'string' || isLoopbackHost(value) || !!env.ADMIN_TOKEN || !!env.ADMIN_TOKEN_FILE
        );
      },
      defaultMessage: () =>
        '$property is "$value", beyond loopback: set ADMIN_TOKEN (or ADMIN_TOKEN_FILE) so the console, its actions and /metrics need a credential, or bind ADMIN_HOST to 127.0.0.1',
    },
  });
}

// An http(s) URL (the URL may hold a token, so the message never quotes it).
function HttpUrl(): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    Matches(/^https?:\/\/[^\s]+$/, { message: '$property must be an http:// or https:// URL' }),
  );
}

// An SMTP server as a URL (smtp:// or smtps://, user and password in it if needed: never quoted).
function SmtpUrl(): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    Matches(/^smtps?:\/\/[^\s]+$/, { message: '$property must be an smtp:// or smtps:// URL' }),
  );
}

// Email needs someone to send to once a server is given.
function NeedsRecipients(): PropertyDecorator {
  return ValidateBy({
    name: 'needsRecipients',
    validator: {
      validate: (value: unknown, args) =>
        value === undefined || !!(args?.object as DaemonEnvironment).ALERT_EMAIL_TO,
      defaultMessage: () =>
        '$property needs ALERT_EMAIL_TO: the address(es) alerts are mailed to, comma-separated',
    },
  });
}

// A generic alert webhook is always signed: its URL needs a secret.
function SignedWebhook(): PropertyDecorator {
  return ValidateBy({
    name: 'signedWebhook',
    validator: {
      validate: (value: unknown, args) => {
        const env = args?.object as DaemonEnvironment;
        return value === undefined || !!env.ALERT_WEBHOOK_SECRET || !!env.ALERT_WEBHOOK_SECRET_FILE;
      },
      defaultMessage: () =>
        '$property needs ALERT_WEBHOOK_SECRET (or ALERT_WEBHOOK_SECRET_FILE): every alert it receives is signed with it',
    },
  });
}

// The daemon's environment, one property per variable under the variable's own name. The `validate`
// of the Nest ConfigModule (daemon-settings.module.ts) and the entry points read it through
// readDaemonSettings (daemon-settings.ts).
export class DaemonEnvironment {
  @Setting('LEDGER_PATH')
  LEDGER_PATH: string;

  // postgres://…: a ledger shared by several workers, scheduled by pg-boss; unset: SQLite.
  @Expose()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined,
  )
  @IsOptional()
  // The URL holds a password, so the message never quotes it.
  @Matches(/^postgres(ql)?:\/\//, { message: '$property must start with postgres://' })
  LEDGER_URL?: string;

  @Setting('ADMIN_HOST')
  @MinLength(1)
  @CredentialBeyondLoopback()
  ADMIN_HOST: string;

  // The admin credential (Authorization: Bearer, or a signed-in session): the value itself, or a
  // file holding it (read again when it changes). Never logged.
  @OptionalText()
  @IsOptional()
  @MinLength(16, { message: '$property must be at least 16 characters long' })
  ADMIN_TOKEN?: string;

  @OptionalText()
  ADMIN_TOKEN_FILE?: string;

  // Further host names the admin listener answers to (comma-separated), besides loopback names,
  // its bound address and this machine's names: what a browser or Prometheus puts in `Host`.
  @OptionalText()
  ADMIN_ALLOWED_HOSTS?: string;

  @IntegerSetting('ADMIN_PORT', 0, 65535)
  ADMIN_PORT: number;

  @Setting('WEBHOOK_HOST')
  @MinLength(1)
  WEBHOOK_HOST: string;

  @IntegerSetting('WEBHOOK_PORT', 0, 65535)
  @DiffersFromAdminPort()
  WEBHOOK_PORT: number;

  @Expose()
  @Transform((params) => text('LOG_LEVEL')(params).toLowerCase())
  @IsIn(LOG_LEVELS, { message: `$property must be one of ${LOG_LEVELS.join(', ')}, got "$value"` })
  LOG_LEVEL: LogLevel;

  @Setting('CONFIG_DIR')
  CONFIG_DIR: string;

  @IntegerSetting('SHUTDOWN_TIMEOUT_MS', 0, 600_000)
  SHUTDOWN_TIMEOUT_MS: number;

  // How long a drain run takes new work (scheduler/drain-run.budget.ts).
  @IntegerSetting('DRAIN_RUN_SECONDS', 1, 3600)
  DRAIN_RUN_SECONDS: number;

  @IntegerSetting('RETENTION_DAYS', 1, 3650)
  RETENTION_DAYS: number;

  @IntegerSetting('RETENTION_DEAD_DAYS', 1, 3650)
  RETENTION_DEAD_DAYS: number;

  // The decision history's own retention (7 years by default), independent of RETENTION_DAYS.
  @IntegerSetting('HISTORY_RETENTION_DAYS', 1, 36_500)
  HISTORY_RETENTION_DAYS: number;

  @IntegerSetting('JOB_LEASE_SECONDS', 5, 86_400)
  JOB_LEASE_SECONDS: number;

  @IntegerSetting('WORKER_CONCURRENCY', 1, 1000)
  WORKER_CONCURRENCY: number;

  // A worker silent for 6 beats counts as dead (worker-liveness.ts): at most 10 minutes.
  @IntegerSetting('WORKER_HEARTBEAT_SECONDS', 1, 100)
  WORKER_HEARTBEAT_SECONDS: number;

  // Alert channels (docs/operations.md, "Alerts"): each secret also from a file (*_FILE), read again
  // at each delivery so a rotated secret needs no restart.
  @OptionalText()
  @SignedWebhook()
  @HttpUrl()
  ALERT_WEBHOOK_URL?: string;

  @OptionalText()
  @IsOptional()
  @MinLength(16, { message: '$property must be at least 16 characters long' })
  ALERT_WEBHOOK_SECRET?: string;

  @OptionalText()
  ALERT_WEBHOOK_SECRET_FILE?: string;

  @OptionalText()
  @HttpUrl()
  ALERT_SLACK_WEBHOOK_URL?: string;

  @OptionalText()
  ALERT_SLACK_WEBHOOK_URL_FILE?: string;

  @OptionalText()
  @NeedsRecipients()
  @SmtpUrl()
  ALERT_SMTP_URL?: string;

  @OptionalText()
  @IsOptional()
  @NeedsRecipients()
  ALERT_SMTP_URL_FILE?: string;

  @OptionalText()
  @IsOptional()
  @Matches(/^[^\s@,]+@[^\s@,]+(\s*,\s*[^\s@,]+@[^\s@,]+)*$/, {
    message: '$property must be one or more email addresses, comma-separated, got "$value"',
  })
  ALERT_EMAIL_TO?: string;

  @OptionalText()
  @IsOptional()
  @Matches(/^[^\s@]+@[^\s@]+$|^.*<[^\s@]+@[^\s@]+>$/, {
    message: '$property must be an email address, got "$value"',
  })
  ALERT_EMAIL_FROM?: string;

  @IntegerSetting('ALERT_CHECK_SECONDS', 1, 3600)
  ALERT_CHECK_SECONDS: number;

  // 0: never remind while an alert lasts.
  @IntegerSetting('ALERT_RENOTIFY_MINUTES', 0, 10_080)
  ALERT_RENOTIFY_MINUTES: number;

  @IntegerSetting('ALERT_JOB_FAILURES', 1, 1000)
  ALERT_JOB_FAILURES: number;

  @IntegerSetting('ALERT_JOB_FAILING_MINUTES', 1, 10_080)
  ALERT_JOB_FAILING_MINUTES: number;

  @IntegerSetting('ALERT_WORK_AGE_MINUTES', 1, 10_080)
  ALERT_WORK_AGE_MINUTES: number;

  @IntegerSetting('ALERT_UNKNOWN_AGE_MINUTES', 1, 10_080)
  ALERT_UNKNOWN_AGE_MINUTES: number;

  @IntegerSetting('ALERT_CREDENTIAL_RECHECK_MINUTES', 1, 1440)
  ALERT_CREDENTIAL_RECHECK_MINUTES: number;

  @IntegerSetting('ALERT_DELIVERY_ATTEMPTS', 1, 100)
  ALERT_DELIVERY_ATTEMPTS: number;

  @Retired('HOST', 'webhooks')
  HTTP_HOST?: string;

  @Retired('PORT', 'webhooks')
  HTTP_PORT?: string;
}

// Validates the daemon's variables of `env` (the rest is left alone) into a typed object, or throws
// ConfigInvalidError with one problem per bad variable, each naming it. `defaults` replaces some
// documented defaults for one entry point (the CLI logs at warn unless LOG_LEVEL says otherwise).
export function validateDaemonEnvironment(
  env: Environment,
  defaults: DaemonDefaults = {},
): DaemonEnvironment {
  const source: Environment = { ...env };
  for (const [key, value] of Object.entries(defaults)) if (!source[key]?.trim()) source[key] = value;
  // Only the variables declared above are read (excludeExtraneousValues): the instance never holds
  // the process's other variables, secrets included.
  const parsed = plainToInstance(DaemonEnvironment, source, { excludeExtraneousValues: true });
  const errors = validateSync(parsed, { stopAtFirstError: true });
  if (errors.length > 0) throw new ConfigInvalidError(problemsFromValidation(errors, ENVIRONMENT, undefined));
  return parsed;
}
