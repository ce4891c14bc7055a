import { Module, type DynamicModule, type Type } from '@nestjs/common';
import type { Clock } from '../common/clock';
import { ConfigModule } from '../config/config.module';
import type { ConfigService } from '../config/config.service';
import type { DaemonSettings } from '../config/daemon-settings';
import type { DaemonSettingsModuleOptions } from '../config/daemon-settings.module';
import { LedgerModule } from '../ledger';
import { AdminAccessModule } from '../ops/admin-access/admin-access.module';
import { ConsoleModule } from '../ops/console/console.module';
import { HealthModule } from '../ops/health/health.module';
import { LoggingModule } from '../observability/logging/logging.module';
import type { PinoLoggerService } from '../observability/logging/pino-logger.service';
import type { SecretRedactor } from '../observability/logging/secret-redactor';
import { MetricsModule } from '../ops/metrics/metrics.module';
import { OperatorActionsModule } from '../ops/actions/operator-actions.module';
import type { JobName } from '../scheduler/job.types';
import { SchedulerModule } from '../scheduler/scheduler.module';
import { CoreModule } from './core.module';
import { DAEMON_ONLY_MODULES, FLOW_MODULES } from './flow-modules';
import { WebhookListener } from './http-listeners';
import { LedgerPruneScheduler } from './ledger-prune.scheduler';
import { LedgerRecovery } from './ledger-recovery.service';
import { LifecycleLogger } from './lifecycle.logger';

// What main.ts and cli.ts build before Nest starts and hand in.
export interface AppParts {
  // Read before Nest for the logger, the pid file and the listeners; Nest's ConfigModule reads the
  // same settings from `settingsSource` for injection (DAEMON_SETTINGS).
  settings: DaemonSettings;
  settingsSource: DaemonSettingsModuleOptions;
  config: ConfigService;
  redactor: SecretRedactor;
  logger: PinoLoggerService;
  // The machine's clock unless given (tests hand in a ShiftedClock).
  clock?: Clock;
}

export interface PluginModules {
  flows: (Type<unknown> | DynamicModule)[];
  daemonOnly: (Type<unknown> | DynamicModule)[];
  // The jobs put on cron (default: every job); each needs a handler, or the start fails.
  jobs?: readonly JobName[];
}

const DEFAULT_PLUGINS: PluginModules = { flows: FLOW_MODULES, daemonOnly: DAEMON_ONLY_MODULES };

// The modules both entry points share.
export function sharedModules(parts: AppParts): (DynamicModule | Type<unknown>)[] {
  return [
    CoreModule.forRoot(parts.clock),
    LoggingModule.forRoot({ redactor: parts.redactor, logger: parts.logger }),
    ConfigModule.forRoot({ settings: parts.settingsSource, service: parts.config }),
    LedgerModule.forRoot({ databasePath: parts.settings.ledgerPath, url: parts.settings.ledgerUrl }),
    MetricsModule,
    OperatorActionsModule,
  ];
}

// The daemon: HTTP (admin and webhook listeners), cron scheduling, and the flows.
@Module({})
export class AppModule {
  // `plugins` replaces the flow and intake slots (tests run the daemon shell with stand-in jobs).
  static forRoot(parts: AppParts, plugins: PluginModules = DEFAULT_PLUGINS): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ...sharedModules(parts),
        HealthModule,
        SchedulerModule.forRoot({
          cron: true,
          sharedLedger: Boolean(parts.settings.ledgerUrl),
          jobs: plugins.jobs,
        }),
        ConsoleModule,
        AdminAccessModule,
        ...plugins.flows,
        ...plugins.daemonOnly,
      ],
      providers: [LedgerRecovery, LedgerPruneScheduler, WebhookListener, LifecycleLogger],
    };
  }
}
