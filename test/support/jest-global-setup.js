const { startEmbeddedPostgres } = require('./embedded-postgres');

// Once per jest run, before any worker starts (workers inherit this environment):
// - a deterministic time zone;
// - one embedded PostgreSQL server for the suites that run on both ledger engines (each test
//   creates and drops its own database on it). LEDGER_TEST_POSTGRES=off runs those suites on
//   SQLite only; TEST_POSTGRES_URL points them at a server of your own instead.
module.exports = async () => {
  process.env.TZ = 'UTC';
  if (process.env.LEDGER_TEST_POSTGRES === 'off' || process.env.TEST_POSTGRES_URL) return;
  const server = await startEmbeddedPostgres();
  globalThis.__embeddedPostgres = server;
  process.env.TEST_POSTGRES_URL = server.url;
};
