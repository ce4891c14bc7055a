import {
  counterLeadTaskKey,
  counterOfferIdOfTaskKey,
  planCounterClock,
  type ClockedCounter,
} from './counter-clock.plan';
import type { KnownTask } from './offer-clock.plan';
import { clockSettings } from './offer-clock.settings';

const H = 3600 * 1000;
const NOW = Date.parse('2026-11-25T12:00:00Z');
const settings = clockSettings({ leadHours: [24, 2], escalateHours: 1, brokerOwnerId: 'u-9' });
const counter = (hoursLeft: number | null, state: ClockedCounter['state'] = 'waiting'): ClockedCounter => ({
  offerId: 7012,
  expiresMs: hoursLeft === null ? null : NOW + hoursLeft * H,
  state,
});
const open = (key: string): KnownTask => ({ key, open: true });
const done = (key: string): KnownTask => ({ key, open: false });
const k24 = counterLeadTaskKey(7012, 24 * H);
const k2 = counterLeadTaskKey(7012, 2 * H);

describe('planCounterClock', () => {
  it.each([
    { case: 'sent without an expiry: no clock', counter: counter(null), known: [], plan: [] },
    { case: 'far from its expiry: nothing yet', counter: counter(30), known: [], plan: [] },
    {
      case: '24 h window begun, buyer silent: the agent gets the 24 h reminder',
      counter: counter(20),
      known: [],
      plan: [{ kind: 'create_task', key: k24, for: 'agent', lead: '24h', dueMs: NOW - 4 * H }],
    },
    { case: 'its reminder already made: nothing', counter: counter(20), known: [open(k24)], plan: [] },
    { case: 'the agent completed it: never made again', counter: counter(20), known: [done(k24)], plan: [] },
    {
      case: 'first seen 90 min out: only the 2 h reminder',
      counter: counter(1.5),
      known: [],
      plan: [{ kind: 'create_task', key: k2, for: 'agent', lead: '2h', dueMs: NOW - 0.5 * H }],
    },
    {
      case: '2 h window begun: the 2 h reminder, the 24 h one closed as superseded',
      counter: counter(1.5),
      known: [open(k24)],
      plan: [
        { kind: 'create_task', key: k2, for: 'agent', lead: '2h', dueMs: NOW - 0.5 * H },
        { kind: 'complete_task', key: k24, why: 'superseded' },
      ],
    },
    {
      case: 'inside the escalation time: still no broker task (the buyer must answer, not the agent)',
      counter: counter(0.5),
      known: [open(k2)],
      plan: [],
    },
    {
      case: 'the buyer answered: open reminders closed, completed ones left alone',
      counter: counter(1.5, 'answered'),
      known: [done(k24), open(k2)],
      plan: [{ kind: 'complete_task', key: k2, why: 'decided' }],
    },
    {
      case: 'past its expiry unanswered: reminders closed, nothing shown on the record',
      counter: counter(-0.1),
      known: [open(k2)],
      plan: [{ kind: 'complete_task', key: k2, why: 'expired' }],
    },
    {
      case: 'its offer no longer listed: reminders closed',
      counter: counter(5, 'gone'),
      known: [open(k24)],
      plan: [{ kind: 'complete_task', key: k24, why: 'expired' }],
    },
  ])('$case', ({ counter: c, known, plan }) => {
    expect(planCounterClock(c, known, NOW, settings)).toEqual(plan);
  });

  it('makes no reminders when the clocks are switched off, but still closes open ones', () => {
    const off = clockSettings({ enabled: false });
    expect(planCounterClock(counter(1), [], NOW, off)).toEqual([]);
    expect(planCounterClock(counter(1, 'answered'), [open(k2)], NOW, off)).toEqual([
      { kind: 'complete_task', key: k2, why: 'decided' },
    ]);
  });

  it('keys reminders by the countered offer, apart from the offer clock', () => {
    expect(counterLeadTaskKey(7012, 0.5 * H)).toBe('counter:7012:lead:30m');
    expect(counterOfferIdOfTaskKey('counter:7012:lead:2h')).toBe(7012);
    expect(counterOfferIdOfTaskKey('offer:7012:lead:2h')).toBeUndefined();
  });
});
