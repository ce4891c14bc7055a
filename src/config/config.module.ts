import { Global, Module, type DynamicModule } from '@nestjs/common';
import { SecretRedactor } from '../ops/logging/secret-redactor';
import { ConfigService } from './config.service';
import type { DaemonSettings } from './daemon-settings';

export const DAEMON_SETTINGS = Symbol('DAEMON_SETTINGS');

export interface ConfigModuleOptions {
  settings: DaemonSettings;
  // The daemon refuses to start on a bad file; the CLI loads what it can and reports the rest.
  strict: boolean;
}

@Global()
@Module({})
export class ConfigModule {
  static forRoot(options: ConfigModuleOptions): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: DAEMON_SETTINGS, useValue: options.settings },
        {
          provide: ConfigService,
          inject: [SecretRedactor],
          useFactory: (redactor: SecretRedactor) => {
            const service = new ConfigService(options.settings.configDir, redactor);
            service.load(options.strict);
            return service;
          },
        },
      ],
      exports: [DAEMON_SETTINGS, ConfigService],
    };
  }
}
