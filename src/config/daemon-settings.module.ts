import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule as NestConfigModule, ConfigService as NestConfigService } from '@nestjs/config';
import type { Environment } from './brokerage-secrets';
import {
  DAEMON_SETTINGS,
  readDaemonSettings,
  type DaemonSettings,
  type ReadSettingsOptions,
} from './daemon-settings';

interface ValidatedConfig {
  daemon: DaemonSettings;
}

export interface DaemonSettingsModuleOptions extends ReadSettingsOptions {
  // The environment the entry point was given (process.env for the daemon and the CLI).
  env: Environment;
}

// The daemon's settings through @nestjs/config: `validate` runs the class-validator environment class
// (daemon-environment.ts) at module definition, so a bad variable stops the start naming it; consumers
// inject the typed DAEMON_SETTINGS.
@Module({})
export class DaemonSettingsModule {
  static forRoot(options: DaemonSettingsModuleOptions): DynamicModule {
    return {
      module: DaemonSettingsModule,
      imports: [
        NestConfigModule.forRoot({
          // The given environment is the only source: no .env file, and not process.env itself, since
          // tests run several daemons in one process, each with its own environment.
          ignoreEnvFile: true,
          validatePredefined: false,
          skipProcessEnv: true,
          // One key holding an object: Nest copies validated strings back into process.env, and the
          // settings of one daemon must not leak into the next one's environment.
          validate: (): ValidatedConfig => ({ daemon: readDaemonSettings(options.env, options) }),
        }),
      ],
      providers: [
        {
          provide: DAEMON_SETTINGS,
          inject: [NestConfigService],
          useFactory: (config: NestConfigService<ValidatedConfig, true>): DaemonSettings =>
            config.get('daemon', { infer: true }),
        },
      ],
      exports: [DAEMON_SETTINGS],
    };
  }
}
