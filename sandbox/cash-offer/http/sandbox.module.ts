import { DynamicModule, Module, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { Autopilot } from '../autopilot';
import { ExpirySweeper } from '../expiry.sweeper';
import { FaultInjector } from '../fault.injector';
import { MarketplaceService } from '../marketplace.service';
import { MediaSigner } from '../media.signer';
import { Notifier } from '../notifier';
import { OfferRequestService } from '../offer-request.service';
import { OfferService } from '../offer.service';
import { RequestLifecycle } from '../request.lifecycle';
import { SandboxClock } from '../sandbox.clock';
import { SandboxStore } from '../sandbox.store';
import { SandboxAccount } from '../sandbox.types';
import { SpecReadings } from '../spec-readings';
import { WebhookSender } from '../webhook.sender';
import { ApiCallInterceptor } from './api-call.interceptor';
import { ApiKeyGuard } from './api-key.guard';
import { ApiController } from './api.controller';
import { CallLog } from './call.log';
import { ControlController } from './control.controller';
import { ExpirySweepInterceptor } from './expiry-sweep.interceptor';
import { FaultDelays } from './fault.delays';
import { JsonBodyInterceptor } from './json-body.interceptor';
import { TimestampFormatInterceptor } from './timestamp-format.interceptor';
import { ApiNotFoundController, NotFoundController } from './not-found.controllers';
import { PublicController } from './public.controller';
import { SandboxAddress } from './sandbox.address';
import { SandboxExceptionFilter } from './sandbox-exception.filter';
import { AGENT_KEY } from './sandbox.tokens';
import { TrailingSlashMiddleware } from './trailing-slash.middleware';

export interface CashOfferSandboxSettings {
  accounts: readonly SandboxAccount[];
  agentKey: string;
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
  pushDelayMs: number;
  specReadings: SpecReadings;
}

// The Cash Offer service sandbox as its own Nest application (started by startCashOfferSandbox,
// never imported into the daemon's AppModule). Nest registers routes most specific first, so the
// catch-all unknown-path answers come last whatever the order here.
@Module({})
export class CashOfferSandboxModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(TrailingSlashMiddleware).forRoutes(ApiController);
  }

  static register(settings: CashOfferSandboxSettings): DynamicModule {
    return {
      module: CashOfferSandboxModule,
      controllers: [
        PublicController,
        ApiController,
        ApiNotFoundController,
        ControlController,
        NotFoundController,
      ],
      providers: [
        {
          provide: SandboxStore,
          useFactory: () =>
            new SandboxStore(settings.accounts, () => settings.specReadings.current.idSequences),
        },
        { provide: AGENT_KEY, useValue: settings.agentKey },
        { provide: SpecReadings, useValue: settings.specReadings },
        {
          provide: WebhookSender,
          inject: [SandboxStore, SandboxClock, FaultInjector],
          useFactory: (store: SandboxStore, clock: SandboxClock, faults: FaultInjector) =>
            new WebhookSender(store, clock, faults, {
              retryDelaysMs: settings.webhookRetryDelaysMs,
              timeoutMs: settings.webhookTimeoutMs,
            }),
        },
        {
          provide: MarketplaceService,
          inject: [SandboxStore, SandboxClock, MediaSigner, RequestLifecycle, SpecReadings],
          useFactory: (
            store: SandboxStore,
            clock: SandboxClock,
            signer: MediaSigner,
            lifecycle: RequestLifecycle,
            readings: SpecReadings,
          ) => new MarketplaceService(store, clock, signer, lifecycle, readings, settings.pushDelayMs),
        },
        SandboxClock,
        FaultInjector,
        MediaSigner,
        Notifier,
        RequestLifecycle,
        OfferRequestService,
        OfferService,
        ExpirySweeper,
        Autopilot,
        SandboxAddress,
        FaultDelays,
        CallLog,
        ApiKeyGuard,
        ApiCallInterceptor,
        JsonBodyInterceptor,
        ExpirySweepInterceptor,
        TimestampFormatInterceptor,
        SandboxExceptionFilter,
      ],
    };
  }
}
