import { Module } from '@nestjs/common';
import { CashOfferModule } from '../cash-offer/cash-offer.module';
import { BrokerageClients } from './brokerage-clients';
import { CrmPortFactory } from './crm-port.factory';

// Per-brokerage remote clients (Cash Offer service, CRM), built from the loaded config.
@Module({
  imports: [CashOfferModule],
  providers: [BrokerageClients, CrmPortFactory],
  exports: [BrokerageClients, CrmPortFactory],
})
export class BrokeragesModule {}
