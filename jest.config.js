// Three tiers (see docs/architecture.md): unit specs beside the code, medium specs on real
// SQLite files, end-to-end specs that start the simulators and talk real HTTP.
// Type-checking is done once by `npm run typecheck`, so ts-jest only transpiles here.
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.jest.json', diagnostics: false }] };
const common = {
  transform,
  moduleFileExtensions: ['ts', 'js', 'json'],
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/test/support/jest-setup.js'],
};

module.exports = {
  globalSetup: '<rootDir>/test/support/jest-global-setup.js',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    { ...common, displayName: 'medium', testMatch: ['<rootDir>/test/medium/**/*.medium-spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'] },
  ],
};
