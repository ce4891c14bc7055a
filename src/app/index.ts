export { AppModule, sharedModules, type AppParts, type PluginModules } from './app.module';
export { buildAppParts } from './app.bootstrap';
export { startDaemon, type StartDaemonOptions } from './daemon';
export type { DaemonExtension } from './daemon-extension';
export { FLOW_MODULES, DAEMON_ONLY_MODULES } from './flow-modules';
