import { Global, Module } from '@nestjs/common';
import { ReplayService } from './replay.service';

// What an operator can do to the ledger, shared by the CLI and the status page (pause and resume
// live in SchedulerModule, beside the runner that enforces them).
@Global()
@Module({ providers: [ReplayService], exports: [ReplayService] })
export class OperatorActionsModule {}
