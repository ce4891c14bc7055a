import { Module } from '@nestjs/common';
import { CashOfferModule } from '../cash-offer/cash-offer.module';
import { BrokerageClients } from './brokerage-clients';

// Per-brokerage remote clients, built from the loaded config.
@Module({
  imports: [CashOfferModule],
  providers: [BrokerageClients],
  exports: [BrokerageClients],
})
export class BrokeragesModule {}
