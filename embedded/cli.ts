import 'reflect-metadata';
import { runCli } from '../src/cli/run-cli';
import { embeddedDemo } from './embedded-demo.extension';

// `npm run cli -- <command>`: the CLI with the embedded demo's settings, so it finds a demo's
// ledger and the simulators' credentials as `npm start` does.
runCli([embeddedDemo(process.env)]);
