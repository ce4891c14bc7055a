import { Global, Module, type DynamicModule } from '@nestjs/common';
import { ConfigService } from './config.service';
import { DAEMON_SETTINGS, type DaemonSettings } from './daemon-settings';

export { DAEMON_SETTINGS };

export interface ConfigModuleOptions {
  settings: DaemonSettings;
  // Built and loaded by the entry point before Nest starts: the daemon refuses to start on a bad
  // file (ConfigService.load(true)), the CLI loads what it can and reports the rest.
  service: ConfigService;
}

@Global()
@Module({})
export class ConfigModule {
  static forRoot(options: ConfigModuleOptions): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: DAEMON_SETTINGS, useValue: options.settings },
        { provide: ConfigService, useValue: options.service },
      ],
      exports: [DAEMON_SETTINGS, ConfigService],
    };
  }
}
