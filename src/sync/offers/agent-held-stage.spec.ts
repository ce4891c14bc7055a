import type { OutboxState } from '../../ledger';
import {
  agentRequestIn,
  agentRequestKey,
  agentRequestWaits,
  DECIDE_OFFER_OPERATION,
  sameRequest,
  stageWrittenOver,
} from './agent-held-stage';
import { counterCommandKey } from './counter-link';

const command = (state: OutboxState, payload: unknown = {}) => ({ state, payload });

describe('the agent’s "… requested" stages', () => {
  it('name the request each stands for; other stages name none', () => {
    expect(agentRequestIn('accept_requested')).toEqual({
      operation: DECIDE_OFFER_OPERATION,
      decision: 'accepted',
    });
    expect(agentRequestIn('reject_requested')).toEqual({
      operation: DECIDE_OFFER_OPERATION,
      decision: 'rejected',
    });
    expect(agentRequestIn('counter_requested')).toEqual({ operation: 'counter_offer' });
    for (const stage of ['incoming', 'countered', 'counter_rejected', 'rejected', 'expired', undefined])
      expect(agentRequestIn(stage)).toBeUndefined();
  });

  it('key a request by its offer’s one command of that kind', () => {
    expect(agentRequestKey('acme', '7001', agentRequestIn('counter_requested')!)).toBe(
      counterCommandKey('acme', 7001),
    );
  });

  it('wait until the request’s own command is done or dead', () => {
    const reject = agentRequestIn('reject_requested')!;
    expect(agentRequestWaits(reject, null)).toBe(true); // the move not read yet
    for (const state of ['pending', 'sending', 'failed', 'unknown'] as const)
      expect(agentRequestWaits(reject, command(state, { decision: 'rejected' }))).toBe(true);
    expect(agentRequestWaits(reject, command('done', { decision: 'rejected' }))).toBe(false);
    expect(agentRequestWaits(reject, command('dead', { decision: 'rejected' }))).toBe(false);
    const counter = agentRequestIn('counter_requested')!;
    expect(agentRequestWaits(counter, command('done'))).toBe(false);
    expect(agentRequestWaits(counter, command('pending'))).toBe(true);
  });

  it('wait on a second decision the consumer has still to refuse (an accept after a done reject)', () => {
    const accept = agentRequestIn('accept_requested')!;
    expect(agentRequestWaits(accept, command('done', { decision: 'rejected' }))).toBe(true);
  });

  it('tell one request from another: a reject is not the counter an outcome answers', () => {
    const [accept, reject, counter] = ['accept_requested', 'reject_requested', 'counter_requested'].map(
      (stage) => agentRequestIn(stage)!,
    );
    expect(sameRequest(reject, { operation: DECIDE_OFFER_OPERATION, decision: 'rejected' })).toBe(true);
    expect(sameRequest(reject, accept)).toBe(false);
    expect(sameRequest(reject, counter)).toBe(false);
    expect(sameRequest(counter, { operation: 'counter_offer' })).toBe(true);
  });
});

describe('the stage a write went over', () => {
  const history = (...stageIds: string[]) => stageIds.map((stageId) => ({ stageId }));

  it('is the change just before the write, made after the writer read the record', () => {
    // Read in Countered; the agent moved it to Reject requested; the write moved it to Counter rejected.
    expect(
      stageWrittenOver(
        history('counter_rejected', 'reject_requested', 'countered'),
        'counter_rejected',
        'countered',
      ),
    ).toBe('reject_requested');
  });

  it('is none when nothing came between the read and the write', () => {
    expect(
      stageWrittenOver(history('counter_rejected', 'countered'), 'counter_rejected', 'countered'),
    ).toBeUndefined();
  });

  it('is none when a change came after the write: that newer move stands', () => {
    expect(
      stageWrittenOver(
        history('reject_requested', 'counter_rejected', 'countered'),
        'counter_rejected',
        'countered',
      ),
    ).toBeUndefined();
  });

  it('is none for a record with no change before the write, or no history', () => {
    expect(stageWrittenOver(history('counter_rejected'), 'counter_rejected', undefined)).toBeUndefined();
    expect(stageWrittenOver([], 'counter_rejected', 'countered')).toBeUndefined();
  });

  it('is none when the change before is the stage written (the CRM kept a value set twice)', () => {
    expect(
      stageWrittenOver(history('counter_rejected', 'counter_rejected'), 'counter_rejected', 'countered'),
    ).toBeUndefined();
  });
});
