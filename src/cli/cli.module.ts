import { Module, type DynamicModule } from '@nestjs/common';
import { sharedModules, type AppParts } from '../app/app.module';
import { FLOW_MODULES } from '../app/flow-modules';
import { CrmOnlineCheck } from '../brokerages/crm-online.check';
import { CrmPortFactory } from '../brokerages/crm-port.factory';
import { SchedulerModule } from '../scheduler/scheduler.module';
import { OutboxModule } from '../sync/outbox/outbox.module';
import { OfferFiguresReader } from '../sync/offer-clocks/offer-figures';
import { StatusSnapshotService } from '../status/status-snapshot.service';
import { CONFIG_COMMANDS, LEDGER_COMMANDS } from './commands';
import { CliOutput } from './output/cli-output';

// The same modules as the daemon minus HTTP and cron. `ledger: false` is for commands that only need
// the config (validate-config), so they neither open nor create the ledger file.
@Module({})
export class CliModule {
  static forRoot(parts: AppParts, options: { ledger: boolean }): DynamicModule {
    const [core, logging, config, ...withLedger] = sharedModules(parts);
    return {
      module: CliModule,
      imports: options.ledger
        ? [
            core,
            logging,
            config,
            ...withLedger,
            SchedulerModule.forRoot({ cron: false }),
            ...FLOW_MODULES,
            // The flows' outbox, for confirm-received (the same module instance the flows import).
            OutboxModule,
          ]
        : [core, logging, config],
      providers: [
        { provide: CliOutput, useValue: new CliOutput() },
        // validate-config --online asks each brokerage's CRM about its token and ids; no ledger involved.
        CrmPortFactory,
        CrmOnlineCheck,
        ...CONFIG_COMMANDS,
        ...(options.ledger ? [StatusSnapshotService, OfferFiguresReader, ...LEDGER_COMMANDS] : []),
      ],
    };
  }
}
