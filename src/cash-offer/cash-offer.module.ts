import { Module } from '@nestjs/common';
import { CashOfferClientFactory } from './cash-offer-client.factory';

@Module({
  providers: [CashOfferClientFactory],
  exports: [CashOfferClientFactory],
})
export class CashOfferModule {}
