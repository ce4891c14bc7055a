export { positiveId } from '../../cash-offer/positive-id';
