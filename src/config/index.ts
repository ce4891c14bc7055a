export * from './brokerage-config.schema';
export { type BrokerageSecrets, type Environment, resolveSecrets, secretValues } from './brokerage-secrets';
export { diffBrokerages, isEmptyDiff, type ConfigDiff } from './config-diff';
export { ConfigInvalidError, formatProblem, type ConfigProblem } from './config-error';
export { loadBrokerageConfigs, type LoadedBrokerage, type ConfigLoadResult } from './config.loader';
export { ConfigService, type ReloadResult, type ConfigChangeListener } from './config.service';
export { ConfigModule, DAEMON_SETTINGS, type ConfigModuleOptions } from './config.module';
export {
  readDaemonSettings,
  DAEMON_DEFAULTS,
  IN_MEMORY_LEDGER,
  type DaemonSettings,
} from './daemon-settings';
export { DaemonSettingsModule } from './daemon-settings.module';
