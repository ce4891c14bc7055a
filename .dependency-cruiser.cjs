// The import graph's rules, checked by `npm run lint` (and so by `npm test`): no cycle between two
// directories of src/, and the simulators reached only from their own entry and the embedded demo.
// Specs are left out: a test may reach across to build what it checks.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-directory-cycles',
      severity: 'error',
      comment:
        'Directories of src/ depend on each other one way (docs/architecture.md, "Dependencies"). ' +
        'Move the shared piece down into the directory both use, or split it.',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-file-cycles',
      severity: 'error',
      comment:
        'A runtime module cycle makes load order matter (an import seen as undefined at start); ' +
        'type-only imports vanish at compile time and are left out.',
      from: { path: '^src/' },
      to: { circular: true, dependencyTypesNot: ['type-only'], viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-sandbox-in-daemon',
      severity: 'error',
      comment:
        'The simulators are not part of the daemon: only their own entry (src/sandbox) and the ' +
        'embedded demo composition (src/app/embedded) may import them.',
      from: { path: '^src/', pathNot: ['^src/sandbox/', '^src/app/embedded/'] },
      to: { path: '^src/sandbox/' },
    },
    {
      name: 'no-demo-in-daemon',
      severity: 'error',
      comment:
        'The daemon knows nothing of demos: main.ts composes the embedded demo in as a ' +
        'DaemonExtension (src/app/embedded/embedded-demo.extension.ts). Only main.ts, the embedded ' +
        "directory itself and app.bootstrap.ts (the simulated brokerages' ledger path and credentials, " +
        'shared with the CLI) may import it.',
      from: {
        path: '^src/',
        pathNot: ['^src/main\\.ts$', '^src/app/embedded/', '^src/app/app\\.bootstrap\\.ts$'],
      },
      to: { path: '^src/app/embedded/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['\\.spec\\.ts$', '\\.testing\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
