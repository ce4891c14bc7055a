// The import graph's rules, checked by `npm run lint` (and so by `npm test`): no cycle between two
// directories, and the daemon (src/) never reaching the simulators (sandbox/) or the demo (embedded/).
// Specs are left out: a test may reach across to build what it checks.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-directory-cycles',
      severity: 'error',
      comment:
        'Directories depend on each other one way (docs/architecture.md, "Dependencies"). ' +
        'Move the shared piece down into the directory both use, or split it.',
      scope: 'folder',
      from: { path: '^(src|sandbox|embedded)/' },
      to: { circular: true },
    },
    {
      name: 'no-file-cycles',
      severity: 'error',
      comment:
        'A runtime module cycle makes load order matter (an import seen as undefined at start); ' +
        'type-only imports vanish at compile time and are left out.',
      from: { path: '^(src|sandbox|embedded)/' },
      to: { circular: true, dependencyTypesNot: ['type-only'], viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-simulators-in-daemon',
      severity: 'error',
      comment:
        'The daemon (src/) is built and shipped without the simulators (sandbox/) and the embedded ' +
        'demo (embedded/): they compose the daemon from outside (embedded/main.ts), never the reverse.',
      from: { path: '^src/' },
      to: { path: '^(sandbox|embedded)/' },
    },
    {
      name: 'no-demo-in-simulators',
      severity: 'error',
      comment: 'The simulators stand alone (npm run sandbox); the embedded demo composes them with the daemon.',
      from: { path: '^sandbox/' },
      to: { path: '^embedded/' },
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
