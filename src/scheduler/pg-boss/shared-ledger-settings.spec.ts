import { readDaemonSettings } from '../../config/daemon-settings';

describe('shared-ledger settings', () => {
  it('leaves the ledger on SQLite unless LEDGER_URL is set, with a lease and a concurrency', () => {
    expect(readDaemonSettings({})).toMatchObject({
      ledgerUrl: undefined,
      jobLeaseSeconds: 900,
      workerConcurrency: 16,
      workerHeartbeatSeconds: 5,
    });
    expect(
      readDaemonSettings({
        LEDGER_URL: 'postgres://u:p@db:5432/cos',
        JOB_LEASE_SECONDS: '60',
        WORKER_CONCURRENCY: '4',
        WORKER_HEARTBEAT_SECONDS: '1',
      }),
    ).toMatchObject({
      ledgerUrl: 'postgres://u:p@db:5432/cos',
      jobLeaseSeconds: 60,
      workerConcurrency: 4,
      workerHeartbeatSeconds: 1,
    });
  });

  it('refuses a LEDGER_URL that is not PostgreSQL, and a lease too short to run anything', () => {
    expect(() => readDaemonSettings({ LEDGER_URL: 'mysql://db/cos' })).toThrow(
      'LEDGER_URL must start with postgres://',
    );
    expect(() => readDaemonSettings({ JOB_LEASE_SECONDS: '1' })).toThrow('JOB_LEASE_SECONDS');
    expect(() => readDaemonSettings({ WORKER_HEARTBEAT_SECONDS: '0' })).toThrow('WORKER_HEARTBEAT_SECONDS');
  });
});
