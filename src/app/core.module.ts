import { Global, Module, type DynamicModule } from '@nestjs/common';
import { Clock, SystemClock } from '../common/clock';
import { CredentialSuspicions } from '../common/credential-suspicions';

// Process-wide services with no other home. The clock is the machine's unless an entry point hands
// in another (end-to-end tests move time forward instead of waiting for offers to run out).
@Global()
@Module({})
export class CoreModule {
  static forRoot(clock: Clock = new SystemClock()): DynamicModule {
    return {
      module: CoreModule,
      providers: [{ provide: Clock, useValue: clock }, CredentialSuspicions],
      exports: [Clock, CredentialSuspicions],
    };
  }
}
