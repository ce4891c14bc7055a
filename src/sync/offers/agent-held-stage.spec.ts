import type { OutboxState } from '../../ledger';
import {
  agentRequestIn,
  agentRequestKey,
  agentRequestWaits,
  DECIDE_OFFER_OPERATION,
  sameRequest,
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
