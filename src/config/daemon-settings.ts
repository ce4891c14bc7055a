import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Environment } from './brokerage-secrets';
import {
  DAEMON_DEFAULTS,
  LOG_LEVELS,
  validateDaemonEnvironment,
  type DaemonDefaults,
  type LogLevel,
} from './daemon-environment';

export { DAEMON_DEFAULTS, LOG_LEVELS, type LogLevel };

// Process-wide settings, from the environment (daemon-environment.ts validates it), with the
// defaults documented in docs/operations.md. Injected as DAEMON_SETTINGS (DaemonSettingsModule).
export interface DaemonSettings {
  ledgerPath: string;
  // The directory of LEDGER_PATH, the operator's data directory, even when this process opens
  // another ledger (the CLI's in-memory one): where setup-crm writes HubSpot's webhooks.json.
  dataDir: string;
  // Health, metrics: for the operator and the supervisor only.
  adminHost: string;
  adminPort: number;
  // The admin credential: the token itself or the file holding it (ADMIN_TOKEN, ADMIN_TOKEN_FILE).
  adminToken?: string;
  adminTokenFile?: string;
  // Host names the admin listener answers to besides its own (ADMIN_ALLOWED_HOSTS).
  adminAllowedHosts: string[];
  // Webhooks only: the one listener that may face the internet.
  webhookHost: string;
  webhookPort: number;
  logLevel: LogLevel;
  configDir: string;
  shutdownTimeoutMs: number;
  // How long an outbox or inbox drain run takes new work (DRAIN_RUN_SECONDS; drain-run.budget.ts).
  drainRunBudgetMs: number;
  // Ledger retention (pruned at start and hourly, or by `cli prune`): finished history, and the
  // dead and flagged webhook bodies kept as evidence.
  retentionDays: number;
  retentionDeadDays: number;
  // The decision history's own retention (HISTORY_RETENTION_DAYS), independent of the above.
  historyRetentionDays: number;
  // LEDGER_URL (postgres://…): a ledger shared by several workers, scheduled by pg-boss; unset: SQLite.
  ledgerUrl?: string;
  // With LEDGER_URL: how long a worker may hold a (brokerage, job) before pg-boss gives it to
  // another worker; a run still going near the end of it stops at its next checkpoint.
  jobLeaseSeconds: number;
  // With LEDGER_URL: runs one worker holds at once (its share of CPU, memory and connections).
  workerConcurrency: number;
  // With LEDGER_URL: how often a worker writes its heartbeat and looks for the jobs of dead ones
  // (ledger/worker-liveness.ts says when a silent worker counts as dead).
  workerHeartbeatSeconds: number;
  alerts: AlertSettings;
}

// Where alerts go and when they fire (docs/operations.md, "Alerts").
export interface AlertSettings {
  webhookUrl?: string;
  webhookSecret?: string;
  webhookSecretFile?: string;
  slackWebhookUrl?: string;
  slackWebhookUrlFile?: string;
  smtpUrl?: string;
  smtpUrlFile?: string;
  emailTo: string[];
  emailFrom: string;
  checkMs: number;
  // null: no reminders while an alert lasts.
  renotifyMs: number | null;
  jobFailures: number;
  jobFailingMs: number;
  workAgeMs: number;
  unknownAgeMs: number;
  credentialRecheckMs: number;
  deliveryAttempts: number;
}

// Injection token for DaemonSettings.
export const DAEMON_SETTINGS = Symbol('DAEMON_SETTINGS');

// SQLite's name for a ledger that lives and dies with the process (the CLI's dry runs).
export const IN_MEMORY_LEDGER = ':memory:';

export interface ReadSettingsOptions {
  // An entry point's own defaults for some variables (the CLI logs at warn).
  defaults?: DaemonDefaults;
  // The ledger this process opens when its entry point chose another than LEDGER_PATH: the demo's
  // own file, or IN_MEMORY_LEDGER.
  ledgerPath?: string;
}

// Validates the environment and names its settings; throws ConfigInvalidError naming each bad
// variable. Pure, so the entry points (before Nest, for the logger and the pid file) and the Nest
// ConfigModule's `validate` read the same settings from the same environment.
export function readDaemonSettings(env: Environment, options: ReadSettingsOptions = {}): DaemonSettings {
  const e = validateDaemonEnvironment(env, options.defaults);
  const ledgerPath = options.ledgerPath ?? e.LEDGER_PATH;
  return {
    ledgerPath: ledgerPath === IN_MEMORY_LEDGER ? ledgerPath : resolve(ledgerPath),
    dataDir: dirname(resolve(e.LEDGER_PATH)),
    ledgerUrl: e.LEDGER_URL,
    adminHost: e.ADMIN_HOST,
    adminPort: e.ADMIN_PORT,
    adminToken: e.ADMIN_TOKEN,
    adminTokenFile: e.ADMIN_TOKEN_FILE ? resolve(e.ADMIN_TOKEN_FILE) : undefined,
    adminAllowedHosts: (e.ADMIN_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    webhookHost: e.WEBHOOK_HOST,
    webhookPort: e.WEBHOOK_PORT,
    logLevel: e.LOG_LEVEL,
    configDir: resolve(e.CONFIG_DIR),
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    drainRunBudgetMs: e.DRAIN_RUN_SECONDS * 1000,
    retentionDays: e.RETENTION_DAYS,
    retentionDeadDays: e.RETENTION_DEAD_DAYS,
    historyRetentionDays: e.HISTORY_RETENTION_DAYS,
    jobLeaseSeconds: e.JOB_LEASE_SECONDS,
    workerConcurrency: e.WORKER_CONCURRENCY,
    workerHeartbeatSeconds: e.WORKER_HEARTBEAT_SECONDS,
    alerts: {
      webhookUrl: e.ALERT_WEBHOOK_URL,
      webhookSecret: e.ALERT_WEBHOOK_SECRET,
      webhookSecretFile: e.ALERT_WEBHOOK_SECRET_FILE && resolve(e.ALERT_WEBHOOK_SECRET_FILE),
      slackWebhookUrl: e.ALERT_SLACK_WEBHOOK_URL,
      slackWebhookUrlFile: e.ALERT_SLACK_WEBHOOK_URL_FILE && resolve(e.ALERT_SLACK_WEBHOOK_URL_FILE),
      smtpUrl: e.ALERT_SMTP_URL,
      smtpUrlFile: e.ALERT_SMTP_URL_FILE && resolve(e.ALERT_SMTP_URL_FILE),
      emailTo: (e.ALERT_EMAIL_TO ?? '')
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
      emailFrom: e.ALERT_EMAIL_FROM ?? `cash-offer-sync@${hostname()}`,
      checkMs: e.ALERT_CHECK_SECONDS * 1000,
      renotifyMs: e.ALERT_RENOTIFY_MINUTES === 0 ? null : e.ALERT_RENOTIFY_MINUTES * 60_000,
      jobFailures: e.ALERT_JOB_FAILURES,
      jobFailingMs: e.ALERT_JOB_FAILING_MINUTES * 60_000,
      workAgeMs: e.ALERT_WORK_AGE_MINUTES * 60_000,
      unknownAgeMs: e.ALERT_UNKNOWN_AGE_MINUTES * 60_000,
      credentialRecheckMs: e.ALERT_CREDENTIAL_RECHECK_MINUTES * 60_000,
      deliveryAttempts: e.ALERT_DELIVERY_ATTEMPTS,
    },
  };
}
