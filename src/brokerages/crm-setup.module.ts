import { Module } from '@nestjs/common';
import { BrokeragesModule } from './brokerages.module';
import { CrmSetupService } from './crm-setup.service';

@Module({
  imports: [BrokeragesModule],
  providers: [CrmSetupService],
  exports: [CrmSetupService],
})
export class CrmSetupModule {}
