import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Environment } from '../config/brokerage-secrets';
import type { LoadedBrokerage } from '../config/config.loader';
import type { AppParts } from './app.module';

// What an entry point adds to the settings the daemon and the CLI read, without either knowing it
// (the embedded demo in embedded/ is one). Each hook gets what the previous one returned.
export interface SettingsExtension {
  // Values for variables the environment leaves unset (the simulators' own credentials).
  environment?(configDir: string, env: Environment): Environment;
  // Another place for the ledger than the one configured (a demo's own file).
  ledgerPath?(brokerages: LoadedBrokerage[], env: Environment, configured: string): string;
}

// What an entry point adds around the daemon's start: each step runs in order, and a step that
// throws stops the start.
export interface DaemonExtension extends SettingsExtension {
  // Before the Nest application is built: e.g. start the services the brokerages talk to.
  beforeCreate?(parts: AppParts): Promise<void>;
  // After the modules are built and before the listeners open and cron starts.
  beforeListen?(app: NestExpressApplication, parts: AppParts): Promise<void>;
  // Once both listeners are open ("listening on" is logged).
  afterListen?(app: NestExpressApplication, parts: AppParts): Promise<void>;
}
