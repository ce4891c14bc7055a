import { Module } from '@nestjs/common';
import { CashOfferModule } from '../cash-offer/cash-offer.module';
import { BrokerageCrms } from './brokerage-crms';
import { CashOfferClients } from './cash-offer-clients';
import { CrmPortFactory } from './crm-port.factory';

// Per-brokerage remote clients, built from the loaded config: the Cash Offer client
// (CashOfferClients) and the CRM (BrokerageCrms). A flow injects only the one it uses.
@Module({
  imports: [CashOfferModule],
  providers: [CashOfferClients, BrokerageCrms, CrmPortFactory],
  exports: [CashOfferClients, BrokerageCrms, CrmPortFactory],
})
export class BrokeragesModule {}
