import { Logger } from '@nestjs/common';
import type PgBoss from 'pg-boss';
import type { DaemonSettings } from '../../config/daemon-settings';

// pg-boss's schema in the ledger's database, apart from the ledger's own tables.
export const PG_BOSS_SCHEMA = 'pgboss';

// A worker keeps pg-boss's maintenance and cron going; a one-off client (`sync --once`, a bench
// or test standing in for an operator or a worker) only sends, fetches and completes, and leaves
// both to the workers.
export type PgBossRole = 'worker' | 'one-off';

export type PgBossSettings = Pick<DaemonSettings, 'ledgerUrl' | 'jobLeaseSeconds'>;

const logger = new Logger('PgBoss');

// The one place a PgBoss is built, so every process of a fleet agrees on its schema and on how
// often expired leases are looked for. Not started: the caller starts and stops it.
// pg-boss is loaded here, not at start: a daemon or CLI run on SQLite never needs it, and loading
// it at start cost every such process some 25 ms of CPU of its own (docs/architecture.md, "Tests").
export async function createPgBoss(settings: PgBossSettings, role: PgBossRole): Promise<PgBoss> {
  if (!settings.ledgerUrl) throw new Error('pg-boss needs LEDGER_URL');
  const { default: PgBoss } = await import('pg-boss');
  const common = { connectionString: settings.ledgerUrl, schema: PG_BOSS_SCHEMA };
  const boss = new PgBoss(
    role === 'worker'
      ? {
          ...common,
          application_name: 'cash-offer-sync/pg-boss',
          max: 4,
          // Expired leases are found by maintenance: look often enough that a dead worker's job
          // moves on within about one lease.
          maintenanceIntervalSeconds: Math.max(1, Math.min(60, Math.floor(settings.jobLeaseSeconds / 2))),
          cronMonitorIntervalSeconds: 15,
        }
      : { ...common, application_name: 'cash-offer-sync/cli', max: 2, supervise: false, schedule: false },
  );
  boss.on('error', (error) => logger.error(`pg-boss: ${String(error)}`));
  return boss;
}
