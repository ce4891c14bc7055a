import { NestFactory } from '@nestjs/core';
import { ConfigInvalidError, formatProblem } from './config-error';
import { validateDaemonEnvironment } from './daemon-environment';
import {
  DAEMON_SETTINGS,
  IN_MEMORY_LEDGER,
  readDaemonSettings,
  type DaemonSettings,
} from './daemon-settings';
import { DaemonSettingsModule } from './daemon-settings.module';

function problemsOf(env: Record<string, string>): string[] {
  try {
    validateDaemonEnvironment(env);
  } catch (error) {
    if (error instanceof ConfigInvalidError) return error.problems.map(formatProblem);
    throw error;
  }
  throw new Error(`no problem found in ${JSON.stringify(env)}`);
}

describe('daemon environment', () => {
  it('takes the documented default for an unset or blank variable, and trims what is given', () => {
    const settings = readDaemonSettings({ ADMIN_PORT: ' 4000 ', WEBHOOK_HOST: '  ', LOG_LEVEL: 'DEBUG' });
    expect(settings).toMatchObject({
      adminPort: 4000,
      webhookHost: '127.0.0.1',
      webhookPort: 3001,
      logLevel: 'debug',
      retentionDays: 30,
      retentionDeadDays: 90,
      drainRunBudgetMs: 30_000,
      ledgerUrl: undefined,
    });
    expect(readDaemonSettings({ DRAIN_RUN_SECONDS: '120' }).drainRunBudgetMs).toBe(120_000);
  });

  it('names the variable, the allowed range and what was given', () => {
    expect(problemsOf({ ADMIN_PORT: 'abc' })).toEqual([
      'environment: ADMIN_PORT must be an integer from 0 to 65535, got "abc"',
    ]);
    expect(problemsOf({ SHUTDOWN_TIMEOUT_MS: '600001' })).toEqual([
      'environment: SHUTDOWN_TIMEOUT_MS must be an integer from 0 to 600000, got "600001"',
    ]);
    expect(problemsOf({ DRAIN_RUN_SECONDS: '0' })).toEqual([
      'environment: DRAIN_RUN_SECONDS must be an integer from 1 to 3600, got "0"',
    ]);
    expect(problemsOf({ RETENTION_DAYS: '1.5' })).toEqual([
      'environment: RETENTION_DAYS must be an integer from 1 to 3650, got "1.5"',
    ]);
    expect(problemsOf({ LOG_LEVEL: 'Loud' })).toEqual([
      'environment: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    ]);
  });

  it('reports every bad variable at once, one problem each', () => {
    expect(problemsOf({ ADMIN_PORT: '-1', WORKER_CONCURRENCY: '0', JOB_LEASE_SECONDS: 'soon' })).toEqual([
      'environment: ADMIN_PORT must be an integer from 0 to 65535, got "-1"',
      'environment: JOB_LEASE_SECONDS must be an integer from 5 to 86400, got "soon"',
      'environment: WORKER_CONCURRENCY must be an integer from 1 to 1000, got "0"',
    ]);
  });

  it('refuses the retired single listener, even set blank, naming the variables that replace it', () => {
    expect(problemsOf({ HTTP_HOST: '0.0.0.0', HTTP_PORT: '' })).toEqual([
      'environment: HTTP_HOST is no longer read: set ADMIN_HOST (health, metrics) and WEBHOOK_HOST (webhooks) instead',
      'environment: HTTP_PORT is no longer read: set ADMIN_PORT (health, metrics) and WEBHOOK_PORT (webhooks) instead',
    ]);
  });

  it('keeps the two listeners apart, except on port 0 (any free port for each)', () => {
    expect(problemsOf({ ADMIN_PORT: '4000', WEBHOOK_PORT: '4000' })).toEqual([
      'environment: WEBHOOK_PORT must differ from ADMIN_PORT (4000): webhooks and admin routes have their own listeners',
    ]);
    expect(readDaemonSettings({ ADMIN_PORT: '0', WEBHOOK_PORT: '0' })).toMatchObject({
      adminPort: 0,
      webhookPort: 0,
    });
  });

  it('refuses a LEDGER_URL that is not PostgreSQL without quoting it (it holds a password)', () => {
    const problems = problemsOf({ LEDGER_URL: 'mysql://user:hunter2@db/cos' });
    expect(problems).toEqual(['environment: LEDGER_URL must start with postgres://']);
    expect(problems.join()).not.toContain('hunter2');
  });

  it('checks the alert channels: a signed webhook needs its secret, mail needs a recipient, URLs are never quoted', () => {
    expect(problemsOf({ ALERT_WEBHOOK_URL: 'https://ops.example/h?token=s3cr3t' })).toEqual([
      'environment: ALERT_WEBHOOK_URL needs ALERT_WEBHOOK_SECRET (or ALERT_WEBHOOK_SECRET_FILE): every alert it receives is signed with it',
    ]);
    const problems = problemsOf({
      ALERT_SLACK_WEBHOOK_URL: 'hooks.slack.com/services/T0/B0/s3cr3t',
      ALERT_SMTP_URL: 'smtp://mailer:s3cr3t@mail.example:587',
      ALERT_WEBHOOK_URL: 'https://ops.example/h',
      ALERT_WEBHOOK_SECRET: 'short',
      ALERT_RENOTIFY_MINUTES: '-1',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'environment: ALERT_SLACK_WEBHOOK_URL must be an http:// or https:// URL',
        'environment: ALERT_SMTP_URL needs ALERT_EMAIL_TO: the address(es) alerts are mailed to, comma-separated',
        'environment: ALERT_WEBHOOK_SECRET must be at least 16 characters long',
        'environment: ALERT_RENOTIFY_MINUTES must be an integer from 0 to 10080, got "-1"',
      ]),
    );
    expect(problems.join()).not.toContain('s3cr3t');
    const settings = readDaemonSettings({
      ALERT_SMTP_URL: 'smtp://mail.example:25',
      ALERT_EMAIL_TO: 'ops@example.com, broker@example.com',
      ALERT_RENOTIFY_MINUTES: '0',
    });
    expect(settings.alerts).toMatchObject({
      emailTo: ['ops@example.com', 'broker@example.com'],
      renotifyMs: null,
      checkMs: 30_000,
      jobFailures: 5,
    });
  });

  it('holds only its own variables, never the rest of the environment', () => {
    const parsed = validateDaemonEnvironment({ ACME_CASH_OFFER_API_KEY: 'secret', ADMIN_PORT: '4000' });
    expect(Object.values(parsed)).not.toContain('secret');
    expect(Object.keys(parsed)).not.toContain('ACME_CASH_OFFER_API_KEY');
  });

  it("lets an entry point change a default (the CLI's warn), but not what the operator set", () => {
    expect(readDaemonSettings({}, { defaults: { LOG_LEVEL: 'warn' } }).logLevel).toBe('warn');
    expect(readDaemonSettings({ LOG_LEVEL: ' ' }, { defaults: { LOG_LEVEL: 'warn' } }).logLevel).toBe('warn');
    expect(readDaemonSettings({ LOG_LEVEL: 'info' }, { defaults: { LOG_LEVEL: 'warn' } }).logLevel).toBe(
      'info',
    );
  });

  it('opens the ledger the entry point chose, the in-memory one as it is', () => {
    expect(readDaemonSettings({}, { ledgerPath: IN_MEMORY_LEDGER }).ledgerPath).toBe(':memory:');
    expect(readDaemonSettings({ LEDGER_PATH: '/srv/ledger.sqlite' }).ledgerPath).toBe('/srv/ledger.sqlite');
  });
});

describe('DaemonSettingsModule', () => {
  it('injects the settings read from the given environment, and leaves process.env alone', async () => {
    const before = { ...process.env };
    const env = { ADMIN_PORT: '4100', WEBHOOK_PORT: '4101', CONFIG_DIR: '/etc/cos', LOG_LEVEL: 'silent' };
    const app = await NestFactory.createApplicationContext(DaemonSettingsModule.forRoot({ env }), {
      logger: false,
    });
    try {
      const settings = app.get<DaemonSettings>(DAEMON_SETTINGS);
      expect(settings).toEqual(readDaemonSettings(env));
      expect(settings).toMatchObject({ adminPort: 4100, webhookPort: 4101, configDir: '/etc/cos' });
      expect(process.env).toEqual(before);
    } finally {
      await app.close();
    }
  });

  it('stops the start on a bad variable, naming it', async () => {
    await expect(
      NestFactory.createApplicationContext(DaemonSettingsModule.forRoot({ env: { ADMIN_PORT: 'x' } }), {
        logger: false,
        abortOnError: false,
      }),
    ).rejects.toThrow('environment: ADMIN_PORT must be an integer from 0 to 65535, got "x"');
  });
});
