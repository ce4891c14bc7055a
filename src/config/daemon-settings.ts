import { resolve } from 'node:path';
import type { Environment } from './brokerage-secrets';
import { ConfigInvalidError, type ConfigProblem } from './config-error';

// Process-wide settings, from the environment, with the defaults documented in docs/operations.md.
export interface DaemonSettings {
  ledgerPath: string;
  // LEDGER_URL (postgres://…): a ledger shared by several workers, scheduled by pg-boss; unset: SQLite.
  ledgerUrl?: string;
  httpPort: number;
  httpHost: string;
  logLevel: LogLevel;
  configDir: string;
  shutdownTimeoutMs: number;
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
  HTTP_PORT: '3000',
  HTTP_HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  CONFIG_DIR: 'config/brokerages',
  SHUTDOWN_TIMEOUT_MS: '25000',
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
    key: 'HTTP_PORT' | 'SHUTDOWN_TIMEOUT_MS' | 'JOB_LEASE_SECONDS' | 'WORKER_CONCURRENCY',
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
  const ledgerUrl = env.LEDGER_URL?.trim() || undefined;
  if (ledgerUrl !== undefined && !/^postgres(ql)?:\/\//.test(ledgerUrl)) {
    problems.push({ file: 'environment', path: 'LEDGER_URL', message: 'must start with postgres://' });
  }
  const settings: DaemonSettings = {
    ledgerPath: resolve(get('LEDGER_PATH')),
    ledgerUrl,
    httpPort: integer('HTTP_PORT', 0, 65535),
    httpHost: get('HTTP_HOST'),
    logLevel: logLevel as LogLevel,
    configDir: resolve(get('CONFIG_DIR')),
    shutdownTimeoutMs: integer('SHUTDOWN_TIMEOUT_MS', 0, 600_000),
    jobLeaseSeconds: integer('JOB_LEASE_SECONDS', 5, 86_400),
    workerConcurrency: integer('WORKER_CONCURRENCY', 1, 1000),
  };
  if (problems.length > 0) throw new ConfigInvalidError(problems);
  return settings;
}
