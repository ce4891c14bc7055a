import { Global, Module, type DynamicModule } from '@nestjs/common';
import { ConfigService } from './config.service';
import { DAEMON_SETTINGS } from './daemon-settings';
import { DaemonSettingsModule, type DaemonSettingsModuleOptions } from './daemon-settings.module';

export { DAEMON_SETTINGS };

export interface ConfigModuleOptions {
  // What the daemon settings are read from: the environment and the entry point's choices.
  settings: DaemonSettingsModuleOptions;
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
      imports: [DaemonSettingsModule.forRoot(options.settings)],
      providers: [{ provide: ConfigService, useValue: options.service }],
      exports: [DaemonSettingsModule, ConfigService],
    };
  }
}
