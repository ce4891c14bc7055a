import { resolve } from 'node:path';
import type { Environment } from './brokerage-secrets';
import { ConfigInvalidError, type ConfigProblem } from './config-error';

// Process-wide settings, from the environment, with the defaults documented in docs/operations.md.
export interface DaemonSettings {
  ledgerPath: string;
  // Health, metrics: for the operator and the supervisor only.
  adminHost: string;
  adminPort: number;
  // Webhooks only: the one listener that may face the internet.
  webhookHost: string;
  webhookPort: number;
  logLevel: LogLevel;
  configDir: string;
  shutdownTimeoutMs: number;
  // Ledger retention (pruned at start and hourly, or by `cli prune`): finished history, and the
  // dead and flagged webhook bodies kept as evidence.
  retentionDays: number;
  retentionDeadDays: number;
  // LEDGER_URL (postgres://…): a ledger shared by several workers, scheduled by pg-boss; unset: SQLite.
  ledgerUrl?: string;
  // With LEDGER_URL: how long a worker may hold a (brokerage, job) before pg-boss gives it to
  // another worker; a run still going near the end of it stops at its next checkpoint.
  jobLeaseSeconds: number;
  // With LEDGER_URL: runs one worker holds at once (its share of CPU, memory and connections).
  workerConcurrency: number;
}

// Injection token for DaemonSettings (provided by ConfigModule).
export const DAEMON_SETTINGS = Symbol('DAEMON_SETTINGS');

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DAEMON_DEFAULTS = {
  LEDGER_PATH: 'data/ledger.sqlite',
  ADMIN_HOST: '127.0.0.1',
  ADMIN_PORT: '3000',
  WEBHOOK_HOST: '127.0.0.1',
  WEBHOOK_PORT: '3001',
  LOG_LEVEL: 'info',
  CONFIG_DIR: 'config/brokerages',
  SHUTDOWN_TIMEOUT_MS: '25000',
  RETENTION_DAYS: '30',
  RETENTION_DEAD_DAYS: '90',
  JOB_LEASE_SECONDS: '900',
  WORKER_CONCURRENCY: '16',
} as const;

export function readDaemonSettings(env: Environment): DaemonSettings {
  const problems: ConfigProblem[] = [];
  const get = (key: keyof typeof DAEMON_DEFAULTS): string => {
    const value = env[key];
    return value === undefined || value.trim() === '' ? DAEMON_DEFAULTS[key] : value.trim();
  };
  const integer = (
    key:
      | 'ADMIN_PORT'
      | 'WEBHOOK_PORT'
      | 'SHUTDOWN_TIMEOUT_MS'
      | 'RETENTION_DAYS'
      | 'RETENTION_DEAD_DAYS'
      | 'JOB_LEASE_SECONDS'
      | 'WORKER_CONCURRENCY',
    min: number,
    max: number,
  ): number => {
    const text = get(key);
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push({
        file: 'environment',
        path: key,
        message: `must be an integer from ${min} to ${max}, got "${text}"`,
      });
    }
    return value;
  };
  const logLevel = get('LOG_LEVEL').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    problems.push({
      file: 'environment',
      path: 'LOG_LEVEL',
      message: `must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`,
    });
  }
  // One listener used to serve everything; a deployment still setting it would silently expose
  // /metrics on the old port's replacement, so it is refused with the new names.
  for (const retired of ['HTTP_HOST', 'HTTP_PORT'] as const) {
    if (env[retired] !== undefined)
      problems.push({
        file: 'environment',
        path: retired,
        message: `is no longer read: set ADMIN_${retired.slice(5)} (health, metrics) and WEBHOOK_${retired.slice(5)} (webhooks) instead`,
      });
  }
  const ledgerUrl = env.LEDGER_URL?.trim() || undefined;
  if (ledgerUrl !== undefined && !/^postgres(ql)?:\/\//.test(ledgerUrl)) {
    problems.push({ file: 'environment', path: 'LEDGER_URL', message: 'must start with postgres://' });
  }
  const settings: DaemonSettings = {
    ledgerPath: resolve(get('LEDGER_PATH')),
    ledgerUrl,
    adminHost: get('ADMIN_HOST'),
    adminPort: integer('ADMIN_PORT', 0, 65535),
    webhookHost: get('WEBHOOK_HOST'),
    webhookPort: integer('WEBHOOK_PORT', 0, 65535),
    logLevel: logLevel as LogLevel,
    configDir: resolve(get('CONFIG_DIR')),
    shutdownTimeoutMs: integer('SHUTDOWN_TIMEOUT_MS', 0, 600_000),
    retentionDays: integer('RETENTION_DAYS', 1, 3650),
    retentionDeadDays: integer('RETENTION_DEAD_DAYS', 1, 3650),
    jobLeaseSeconds: integer('JOB_LEASE_SECONDS', 5, 86_400),
    workerConcurrency: integer('WORKER_CONCURRENCY', 1, 1000),
  };
  if (settings.adminPort !== 0 && settings.adminPort === settings.webhookPort)
    problems.push({
      file: 'environment',
      path: 'WEBHOOK_PORT',
      message: `must differ from ADMIN_PORT (${settings.adminPort}): webhooks and admin routes have their own listeners`,
    });
  if (problems.length > 0) throw new ConfigInvalidError(problems);
  return settings;
}
