import { DynamicModule, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AssociationBatchService } from '../emulator.association-batch.service';
import { AssociationsService } from '../emulator.associations.service';
import { BatchService } from '../emulator.batch.service';
import { ControlObjectsService } from '../emulator.control-objects.service';
import { ObjectsService } from '../emulator.objects.service';
import { PipelinesService } from '../emulator.pipelines.service';
import { PropertiesService, PropertyGroupsService } from '../emulator.properties.service';
import { SearchService } from '../emulator.search.service';
import { EmulatorState } from '../emulator.state';
import { UiChanges } from '../emulator.ui-changes';
import { HubSpotWebhooks } from '../emulator.webhooks';
import { AssociationBatchController } from './association-batch.controller';
import { AssociationsController } from './associations.controller';
import { BatchController } from './batch.controller';
import { ControlController } from './control.controller';
import {
  EMULATOR_APP_ID,
  EMULATOR_OPTIONS,
  EMULATOR_PORTAL_ID,
  type EmulatorOptions,
} from './emulator.options';
import { FaultSettings } from './fault.settings';
import { HubSpotExceptionFilter } from './hubspot-exception.filter';
import { HubSpotReplyInterceptor } from './hubspot-reply.interceptor';
import { JsonBodyMiddleware } from './json-body.middleware';
import { ControlNotFoundController, NotFoundController } from './not-found.controllers';
import { ObjectsController } from './objects.controller';
import { OwnersController } from './owners.controller';
import { PipelinesController } from './pipelines.controller';
import { PortalLimitsInterceptor } from './portal-limits.interceptor';
import { PrivateAppGuard } from './private-app.guard';
import { PrivateAppTokens } from './private-app.tokens';
import {
  PropertiesController,
  PropertyBatchController,
  PropertyGroupsController,
} from './properties.controller';
import { RateLimits } from './rate-limits';
import { RequestLogInterceptor } from './request-log.interceptor';
import { RequestLog } from './request.log';
import { SearchController } from './search.controller';
import { TokenInfoController } from './token-info.controller';
import { UiChangesController } from './ui-changes.controller';
import { WebhooksControlController } from './webhooks-control.controller';

// The HubSpot emulator as its own Nest application (started by startHubSpotEmulator, never imported
// into the daemon's AppModule). Nest registers routes most specific first, so the catch-all
// answers come last whatever the order here.
@Module({})
export class HubSpotEmulatorModule implements NestModule {
  static register(options: EmulatorOptions): DynamicModule {
    return {
      module: HubSpotEmulatorModule,
      controllers: [
        SearchController,
        BatchController,
        ObjectsController,
        AssociationsController,
        AssociationBatchController,
        PropertyGroupsController,
        PropertyBatchController,
        PropertiesController,
        PipelinesController,
        OwnersController,
        TokenInfoController,
        ControlController,
        UiChangesController,
        WebhooksControlController,
        ControlNotFoundController,
        NotFoundController,
      ],
      providers: [
        { provide: EMULATOR_OPTIONS, useValue: options },
        {
          provide: EmulatorState,
          useFactory: () => {
            const state = new EmulatorState(options.owners);
            state.objects.searchIndexLagMs = options.searchIndexLagMs;
            return state;
          },
        },
        {
          // Every change of the portal is told to the app's webhook dispatcher.
          provide: HubSpotWebhooks,
          inject: [EmulatorState],
          useFactory: (state: EmulatorState) => {
            const { clientSecret, settings } = options.webhooks;
            const webhooks = new HubSpotWebhooks(clientSecret, EMULATOR_APP_ID, EMULATOR_PORTAL_ID, settings);
            state.objects.onChange = (change) => webhooks.recordChange(change);
            return webhooks;
          },
        },
        ObjectsService,
        BatchService,
        SearchService,
        AssociationsService,
        AssociationBatchService,
        PropertiesService,
        PropertyGroupsService,
        PipelinesService,
        ControlObjectsService,
        UiChanges,
        PrivateAppTokens,
        RateLimits,
        FaultSettings,
        RequestLog,
        PrivateAppGuard,
        RequestLogInterceptor,
        PortalLimitsInterceptor,
        HubSpotReplyInterceptor,
        { provide: APP_FILTER, useClass: HubSpotExceptionFilter },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(JsonBodyMiddleware).forRoutes('{*path}');
  }
}
