import 'reflect-metadata';
import { runDaemon } from '../src/app/daemon.main';
import { embeddedDemo } from './embedded-demo.extension';

// `npm start`: the daemon composed with the embedded demo, which starts the bundled simulators for
// brokerages marked `simulated: true` and does nothing for the others.
runDaemon([embeddedDemo(process.env)]);
