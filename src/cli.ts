import 'reflect-metadata';
import { runCli } from './cli/run-cli';

// The operator's CLI on its own: `node dist/bin/cli.js <command>`. `npm run cli` is this with the
// embedded demo's settings composed in (embedded/cli.ts).
runCli([]);
