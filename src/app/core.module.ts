import { Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from '../common/clock';
import { CredentialSuspicions } from '../common/credential-suspicions';

// Process-wide services with no other home.
@Global()
@Module({
  providers: [{ provide: Clock, useClass: SystemClock }, CredentialSuspicions],
  exports: [Clock, CredentialSuspicions],
})
export class CoreModule {}
