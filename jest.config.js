// Three tiers (see docs/architecture.md): unit specs beside the code, medium specs on real
// SQLite files, end-to-end specs that start the simulators and talk real HTTP.
// Type-checking is done once by `npm run compile`; here SWC only transpiles (test/support/ts.transformer.js).
const ESM_ONLY_PACKAGES = ['@nestjs'];

const common = {
  // One id for every project: one transform cache (and module map) between them.
  id: 'cash-offer-sync',
  transform: {
    '^.+\\.ts$': '<rootDir>/test/support/ts.transformer.js',
    [`node_modules/(${ESM_ONLY_PACKAGES.join('|')})/.+\\.js$`]:
      '<rootDir>/test/support/esm-to-cjs.transformer.js',
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY_PACKAGES.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/test/support/jest-setup.js'],
};

const E2E_SUITES = {
  flows: ['cash-offer-client', 'crm', 'sync-buyer', 'sync-crms', 'sync-seller', 'webhooks'],
  simulators: ['sandbox', 'hubspot-emulator', 'followupboss-emulator'],
  process: ['alerts', 'cli', 'console', 'crash', 'daemon', 'workers'],
};

module.exports = {
  globalSetup: '<rootDir>/test/support/jest-global-setup.js',
  globalTeardown: '<rootDir>/test/support/jest-global-teardown.js',
  // On a fresh clone (no timings yet), the process-killing suites first, not last.
  testSequencer: '<rootDir>/test/support/slow-first.sequencer.js',
  // Medium and end-to-end tests start servers and SQLite files on a shared 2-core machine.
  testTimeout: 60_000,
  // A worker whose heap passed this after a test file is replaced: jest's own caches (every transformed
  // module, source maps) grow with the files a worker runs, and a worker near 1 GB took longer than
  // jest's half second to exit at the end of a run.
  workerIdleMemoryLimit: '700MB',
  projects: [
    {
      ...common,
      displayName: 'unit',
      // test/support holds the tests' own helpers; their specs are unit specs too.
      testMatch: ['<rootDir>/{src,sandbox,embedded,soak,test/support}/**/*.spec.ts'],
    },
    { ...common, displayName: 'medium', testMatch: ['<rootDir>/test/medium/**/*.medium-spec.ts'] },
    // End to end, in three suites each runnable alone (`jest --selectProjects e2e-flows`):
    // the flows on the real ledger and the simulators over HTTP, in this process; the simulators
    // against their vendors' published behaviour; the built daemon and CLI as processes (they need
    // `npm run build`), killed, restarted, scaled out.
    ...Object.entries(E2E_SUITES).map(([suite, dirs]) => ({
      ...common,
      displayName: `e2e-${suite}`,
      testMatch: dirs.map((dir) => `<rootDir>/test/e2e/${dir}/**/*.e2e-spec.ts`),
      setupFiles: [...common.setupFiles, '<rootDir>/test/support/jest-e2e-setup.ts'],
    })),
  ],
};
