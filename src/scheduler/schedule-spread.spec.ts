import { CronTime } from 'cron';
import { DEFAULT_SCHEDULES } from '../config/brokerage-config.schema';
import { brokerageSecond, spreadSchedule } from './schedule-spread';

const IDS = Array.from({ length: 50 }, (_, i) => `office-${String(i + 1).padStart(2, '0')}`);

// The seconds in the minute at which an expression fires.
function firingSeconds(expression: string): number[] {
  return new CronTime(expression, 'UTC')
    .sendAt(12)
    .map((d) => d.second)
    .filter((s, i, all) => all.indexOf(s) === i)
    .sort((a, b) => a - b);
}

describe('spreadSchedule', () => {
  it('gives each brokerage a stable second: the same for the same id, spread over the minute for 50', () => {
    expect(IDS.map(brokerageSecond)).toEqual(IDS.map(brokerageSecond));
    expect(brokerageSecond('acme')).toBe(brokerageSecond('acme'));
    const seconds = new Set(IDS.map(brokerageSecond));
    // 50 ids hashed into 60 seconds: most land apart (a birthday bound, not a perfect spread).
    expect(seconds.size).toBeGreaterThanOrEqual(25);
    for (const s of seconds) expect(s >= 0 && s < 60).toBe(true);
  });

  it('a 5-field schedule runs at the brokerage second of the same minutes', () => {
    const spread = spreadSchedule(DEFAULT_SCHEDULES.crmChanges, 'acme', DEFAULT_SCHEDULES.crmChanges);
    expect(spread).toBe(`${brokerageSecond('acme')} */1 * * * *`);
    expect(firingSeconds(spread)).toEqual([brokerageSecond('acme')]);
    // An operator's 5-field schedule is spread too: it names no second.
    expect(spreadSchedule('0 9 * * 1', 'acme')).toBe(`${brokerageSecond('acme')} 0 9 * * 1`);
  });

  it('a built-in 6-field step keeps its period and shifts its phase by the brokerage second', () => {
    const id = IDS.find((i) => brokerageSecond(i) % 10 !== 0)!;
    const spread = spreadSchedule(DEFAULT_SCHEDULES.outboxDrain, id, DEFAULT_SCHEDULES.outboxDrain);
    const phase = brokerageSecond(id) % 10;
    expect(firingSeconds(spread)).toEqual([0, 1, 2, 3, 4, 5].map((i) => phase + 10 * i));
    const inbox = spreadSchedule(DEFAULT_SCHEDULES.inboxDrain, id, DEFAULT_SCHEDULES.inboxDrain);
    expect(firingSeconds(inbox)).toHaveLength(12);
  });

  it('keeps a seconds field the operator wrote', () => {
    expect(spreadSchedule('*/10 * * * * *', 'acme', DEFAULT_SCHEDULES.inboxDrain)).toBe('*/10 * * * * *');
    expect(spreadSchedule('30 * * * * *', 'acme', DEFAULT_SCHEDULES.crmChanges)).toBe('30 * * * * *');
    expect(spreadSchedule('*/7 * * * * *', 'acme', '*/7 * * * * *')).toBe('*/7 * * * * *');
  });

  it('50 brokerages on default crm-changes no longer fire in one second', () => {
    const perSecond = new Map<number, number>();
    for (const id of IDS) {
      const [second] = firingSeconds(
        spreadSchedule(DEFAULT_SCHEDULES.crmChanges, id, DEFAULT_SCHEDULES.crmChanges),
      );
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(5);
  });
});
