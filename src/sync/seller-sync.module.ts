import { Module } from '@nestjs/common';
import { RecordIssues } from './common/record-issues';
import { InboxModule } from '../inbox/inbox.module';
import { CrmChangesModule } from './crm-changes/crm-changes.module';
import { CounterOfferExecutor } from './decisions/counter-offer.executor';
import { DecideOfferExecutor } from './decisions/decide-offer.executor';
import { OfferDecisionsConsumer } from './decisions/offer-decisions.consumer';
import { OfferRecordOutcome } from './decisions/offer-record.outcome';
import { OfferEventsHandler } from './offers/offer-events.handler';
import { OffersReconcileJob } from './offers-reconcile/offers-reconcile.job';
import { OffersService } from './offers/offers.service';
import { HeldStages } from './offers/held-stages.service';
import { UnconfirmedOffers } from './offers/unconfirmed-offers';
import { OffersOnUnlinkedRequests } from './offers/offers-on-unlinked-requests';
import { UnlistedOffers } from './offers/unlisted-offers';
import { OutboxModule } from './outbox/outbox.module';
import { CounterClocks } from './offer-clocks/counter-clocks.service';
import { OfferClocks } from './offer-clocks/offer-clocks.service';
import { OfferTaskQueue } from './offer-clocks/offer-task.queue';
import { OfferNumbers } from './offer-clocks/offer-numbers';
import { CompleteOfferTaskExecutor, CreateOfferTaskExecutor } from './offer-clocks/offer-task.executors';
import { AddMediaExecutor } from './seller-requests/add-media.executor';
import { PhotoBatchesQueue } from './seller-requests/photo-batches.queue';
import { RequestUpdatesConsumer } from './request-updates/request-updates.consumer';
import { UpdateOfferRequestExecutor } from './request-updates/update-offer-request.executor';
import { RequestStatusService } from './request-status/request-status.service';
import { EvidenceLooks } from './seller-requests/evidence-looks';
import { CreateOfferRequestExecutor } from './seller-requests/create-offer-request.executor';
import { SellerRequestsConsumer } from './seller-requests/seller-requests.consumer';

// The seller side: listing deals become offer requests, offers come back, agents decide.
@Module({
  imports: [CrmChangesModule, OutboxModule, InboxModule],
  providers: [
    RecordIssues,
    CreateOfferRequestExecutor,
    EvidenceLooks,
    SellerRequestsConsumer,
    UpdateOfferRequestExecutor,
    AddMediaExecutor,
    PhotoBatchesQueue,
    RequestUpdatesConsumer,
    RequestStatusService,
    OffersService,
    HeldStages,
    OfferEventsHandler,
    OffersReconcileJob,
    UnlistedOffers,
    UnconfirmedOffers,
    OffersOnUnlinkedRequests,
    OfferRecordOutcome,
    DecideOfferExecutor,
    CounterOfferExecutor,
    OfferDecisionsConsumer,
    OfferClocks,
    CounterClocks,
    OfferTaskQueue,
    OfferNumbers,
    CreateOfferTaskExecutor,
    CompleteOfferTaskExecutor,
  ],
  // For the CLI's `confirm-received --request`.
  exports: [EvidenceLooks],
})
export class SellerSyncModule {}
