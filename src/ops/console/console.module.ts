import { Module, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { urlencoded } from 'express';
import { ConsoleActions } from './console-actions.service';
import { ConsoleFormGuard, ConsoleFormToken } from './console-form.guard';

import { OfferFiguresReader } from '../../sync/offer-clocks/offer-figures';
import { StatusSnapshotService } from '../../status/status-snapshot.service';
import { NoticeBoard } from './notice.board';
import { StatusPageController } from './status-page.controller';

// The status page on the admin listener (daemon only: it reads the running scheduler).
// Needs SchedulerModule.forRoot({ cron: true }), the ledger and OperatorActionsModule (global).
@Module({
  controllers: [StatusPageController],
  providers: [
    StatusSnapshotService,
    OfferFiguresReader,
    ConsoleActions,
    ConsoleFormGuard,
    { provide: ConsoleFormToken, useValue: new ConsoleFormToken() },
    { provide: NoticeBoard, useValue: new NoticeBoard() },
  ],
})
export class ConsoleModule implements NestModule {
  // The page's forms post urlencoded bodies; nothing else on the daemon accepts them.
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(urlencoded({ extended: false, limit: '16kb' })).forRoutes('console/*path');
  }
}
