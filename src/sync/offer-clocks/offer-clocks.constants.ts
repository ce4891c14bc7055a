import { LINK } from '../common/listing-deal.properties';

export { COMPLETE_OFFER_TASK, CREATE_OFFER_TASK } from '../common/offer-task.operations';

// remote: the task's key ("offer:7012:lead:24h"); CRM: the task id; hash: the offer's id and expiry
// (JSON). Active while the task is open as far as the daemon knows; gone once it closed it.
export const OFFER_TASK_LINK = 'offer_task';

// The offer a task key belongs to: "offer:7012:lead:24h" -> 7012.
export function offerIdOfTaskKey(key: string): number | undefined {
  const match = /^offer:(\d+):/.exec(key);
  return match ? Number(match[1]) : undefined;
}

export const OFFER_DECISION_LINK = LINK.offerDecision;

// remote and CRM id: the offer id; hash: "expired". An offer whose record the clocks moved to Expired.
export const OFFER_EXPIRED_LINK = 'offer_expired';
