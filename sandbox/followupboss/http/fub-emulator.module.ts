import { DynamicModule, Module } from '@nestjs/common';
import { FubState } from '../fub-emulator.state';
import { FubWebhooks } from '../fub-emulator.webhooks';
import { ControlController } from './control.controller';
import { CustomFieldsController, DealCustomFieldsController } from './custom-fields.controller';
import { DealsController } from './deals.controller';
import { FubApiCallInterceptor } from './fub-api-call.interceptor';
import { FubAuthGuard } from './fub-auth.guard';
import { FubCallLog } from './fub-call.log';
import { FubExceptionFilter } from './fub-exception.filter';
import { FubFaultInjector } from './fub-fault.injector';
import { FubJsonBodyInterceptor } from './fub-json-body.interceptor';
import { FubRateLimitGuard } from './fub-rate-limit.guard';
import { FubRateLimiter } from './fub-rate.limiter';
import { FUB_SETTINGS, type FubEmulatorSettings } from './fub.settings';
import { NotesController } from './notes.controller';
import { ControlNotFoundController, NotFoundController } from './not-found.controllers';
import { PeopleController } from './people.controller';
import { PipelinesController } from './pipelines.controller';
import { TasksController } from './tasks.controller';
import { WebhooksControlController } from './webhooks-control.controller';
import { WebhooksController } from './webhooks.controller';

// The Follow Up Boss emulator as its own Nest application (started by startFollowUpBossEmulator,
// never imported into the daemon's AppModule). Nest registers routes most specific first, so the
// catch-all unknown-path answers come last whatever the order here.
@Module({})
export class FubEmulatorModule {
  static register(settings: FubEmulatorSettings): DynamicModule {
    return {
      module: FubEmulatorModule,
      controllers: [
        PeopleController,
        DealsController,
        NotesController,
        TasksController,
        CustomFieldsController,
        DealCustomFieldsController,
        PipelinesController,
        WebhooksController,
        WebhooksControlController,
        ControlController,
        ControlNotFoundController,
        NotFoundController,
      ],
      providers: [
        { provide: FUB_SETTINGS, useValue: settings },
        { provide: FubState, useFactory: () => new FubState() },
        {
          // Every change of the account is told to the webhook dispatcher.
          provide: FubWebhooks,
          inject: [FubState],
          useFactory: (state: FubState) => {
            const webhooks = new FubWebhooks(settings.systemKey, settings.webhooks);
            state.onChange = (resource, action, record, before) =>
              webhooks.recordChange(resource, action, record, before);
            return webhooks;
          },
        },
        FubRateLimiter,
        FubFaultInjector,
        FubCallLog,
        FubAuthGuard,
        FubRateLimitGuard,
        FubApiCallInterceptor,
        FubJsonBodyInterceptor,
        FubExceptionFilter,
      ],
    };
  }
}
