export * from './cash-offer.client';
export * from './cash-offer.error';
export * from './cash-offer.module';
export * from './cash-offer.operations';
export * from './cash-offer-client.factory';
export * from './cash-offer-client.options';
export { parseRetryAfter } from './retry-after.parser';
export type { OffersQuery, StreamActiveOptions } from './call-input.guards';
export { readPrelimCounts, type PrelimCounts } from './prelim-answer.reader';
