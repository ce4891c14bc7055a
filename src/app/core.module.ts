import { Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from '../common/clock';

// Process-wide services with no other home.
@Global()
@Module({
  providers: [{ provide: Clock, useClass: SystemClock }],
  exports: [Clock],
})
export class CoreModule {}
