import { sendOrder } from '../outbox/send-order';
import type { OutboxCommand } from '../../ledger';
import { decisionDeadline, decisionOrderingKey } from './decision.command';

describe('decisionDeadline: a decision goes out before its offer runs out', () => {
  const command = (id: number, expiresAt?: string) => ({
    id,
    payload: { offerId: id, requestId: 1, recordId: `r${id}`, ...(expiresAt ? { expiresAt } : {}) },
  });

  it('is the offer expiry the record showed, in either form a CRM keeps it', () => {
    expect(decisionDeadline(command(1, '2026-11-26T14:00:00Z'))).toBe(Date.parse('2026-11-26T14:00:00Z'));
    expect(decisionDeadline(command(1, '1795788000000'))).toBe(1795788000000);
  });

  it('is none for a command queued before the expiry was kept, or an unreadable one', () => {
    expect(decisionDeadline(command(1))).toBeUndefined();
    expect(decisionDeadline(command(1, 'soon'))).toBeUndefined();
  });

  it('puts the decisions soonest to expire ahead of an older backlog', () => {
    const backlog = [
      command(1),
      command(2, '2026-12-01T00:00:00Z'),
      command(3),
      command(4, '2026-11-29T00:00:00Z'),
    ];
    expect(sendOrder(backlog, decisionDeadline).map((c) => c.id)).toEqual([4, 2, 1, 3]);
  });
});

describe("decisionOrderingKey: one offer request's decisions go to the service in order", () => {
  const command = (recordRef: string, payload: unknown) => ({ recordRef, payload }) as OutboxCommand;

  it('is the offer request, whichever offer record the decision is for', () => {
    expect(decisionOrderingKey(command('deal:r1', { offerId: 1, requestId: 7, recordId: 'r1' }))).toBe(
      'offer_request:7',
    );
    expect(decisionOrderingKey(command('deal:r2', { offerId: 2, requestId: 7, recordId: 'r2' }))).toBe(
      'offer_request:7',
    );
  });

  it('is the record for a command that names no request', () => {
    expect(decisionOrderingKey(command('deal:r3', { offerId: 3, recordId: 'r3' }))).toBe('deal:r3');
  });
});
