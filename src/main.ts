import 'reflect-metadata';
import { runDaemon } from './app/daemon.main';

// The daemon, on its own: the brokerages in CONFIG_DIR against their real services. The embedded
// demo (`npm start`, embedded/main.ts) is this with the bundled simulators composed in.
runDaemon([]);
