import { escalationTaskKey, leadTaskKey, planClock, type ClockedOffer, type KnownTask } from './offer-clock.plan';
import { clockSettings } from './offer-clock.settings';

const H = 3600 * 1000;
const NOW = Date.parse('2026-11-25T12:00:00Z');
const withBroker = clockSettings({ leadHours: [24, 2], escalateHours: 1, brokerOwnerId: 'u-9' });
const noBroker = clockSettings(undefined);
const offer = (hoursLeft: number | null, state: ClockedOffer['state'] = 'undecided'): ClockedOffer => ({
  offerId: 7012,
  expiresMs: hoursLeft === null ? null : NOW + hoursLeft * H,
  state,
});
const open = (key: string): KnownTask => ({ key, open: true });
const done = (key: string): KnownTask => ({ key, open: false });
const k24 = leadTaskKey(7012, 24 * H);
const k2 = leadTaskKey(7012, 2 * H);
const kEsc = escalationTaskKey(7012);

describe('planClock', () => {
  it.each([
    { case: 'no expiry: no clock', offer: offer(null), known: [], plan: [] },
    { case: 'far from expiry: nothing yet', offer: offer(30), known: [], plan: [] },
    {
      case: '24 h window begun: the 24 h task, due at its lead time',
      offer: offer(20),
      known: [],
      plan: [{ kind: 'create_task', key: k24, for: 'agent', lead: '24h', dueMs: NOW - 4 * H }],
    },
    { case: 'its task already made: nothing', offer: offer(20), known: [open(k24)], plan: [] },
    {
      case: 'the agent completed it: never made again',
      offer: offer(20),
      known: [done(k24)],
      plan: [],
    },
    {
      case: 'first seen 90 min out: only the 2 h task',
      offer: offer(1.5),
      known: [],
      plan: [{ kind: 'create_task', key: k2, for: 'agent', lead: '2h', dueMs: NOW - 0.5 * H }],
    },
    {
      case: '2 h window begun: the 2 h task, the 24 h one closed as superseded',
      offer: offer(1.5),
      known: [open(k24)],
      plan: [
        { kind: 'create_task', key: k2, for: 'agent', lead: '2h', dueMs: NOW - 0.5 * H },
        { kind: 'complete_task', key: k24, why: 'superseded' },
      ],
    },
    {
      case: 'escalation time without a broker: no broker task',
      offer: offer(0.5),
      known: [open(k2)],
      plan: [],
    },
    {
      case: 'answered: every open task closed, completed ones left alone',
      offer: offer(1.5, 'answered'),
      known: [done(k24), open(k2)],
      plan: [{ kind: 'complete_task', key: k2, why: 'decided' }],
    },
    {
      case: 'past expiry undecided: tasks closed and the record shown expired',
      offer: offer(-0.1),
      known: [open(k2)],
      plan: [{ kind: 'complete_task', key: k2, why: 'expired' }, { kind: 'show_expired' }],
    },
    {
      case: 'the service says expired: tasks closed, nothing else',
      offer: offer(3, 'expired'),
      known: [open(k24)],
      plan: [{ kind: 'complete_task', key: k24, why: 'expired' }],
    },
  ])('$case', ({ offer: o, known, plan }) => {
    expect(planClock(o, known, NOW, noBroker)).toEqual(plan);
  });

  it('escalates once to the broker at the escalation time', () => {
    expect(planClock(offer(0.5), [open(k2)], NOW, withBroker)).toEqual([
      { kind: 'create_task', key: kEsc, for: 'broker', lead: '1h', dueMs: NOW - 0.5 * H },
    ]);
    expect(planClock(offer(0.5), [open(k2), open(kEsc)], NOW, withBroker)).toEqual([]);
  });

  it('makes no tasks when switched off, but still shows an offer that ran out as Expired', () => {
    const off = clockSettings({ enabled: false });
    expect(planClock(offer(1), [], NOW, off)).toEqual([]);
    expect(planClock(offer(-1), [], NOW, off)).toEqual([{ kind: 'show_expired' }]);
  });

  it('reads settings with defaults and names lead times', () => {
    expect(clockSettings({ leadHours: [2, 24, 2] }).leadsMs).toEqual([24 * H, 2 * H]);
    expect(noBroker.escalateMs).toBeNull();
    expect(leadTaskKey(1, 0.5 * H)).toBe('offer:1:lead:30m');
  });
});
