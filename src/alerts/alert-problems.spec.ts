import { alertActions, problemKey, type AlertRow, type Problem } from './alert-problems';

const now = new Date('2026-11-24T12:00:00Z');
const minutes = (n: number) => new Date(now.getTime() - n * 60_000);

function problem(kind: Problem['kind'] = 'jobs_failing', brokerageId = 'acme', summary = 'x'): Problem {
  return { key: problemKey(kind, brokerageId), kind, brokerageId, summary, more: 'cli status' };
}

function alert(p: Problem, state: AlertRow['state'], notifiedMinutesAgo = 1, renotified = 0): AlertRow {
  return {
    key: p.key,
    kind: p.kind,
    brokerageId: p.brokerageId,
    state,
    summary: p.summary,
    notifiedAt: minutes(notifiedMinutesAgo),
    renotified,
    episode: 1,
  };
}

const observe = (problems: Problem[], checked: string[] = [], brokerages = ['acme', 'beta']) => ({
  problems,
  checked: new Set([...checked, ...problems.map((p) => p.key)]),
  brokerages: new Set(brokerages),
});

describe('alertActions', () => {
  const p = problem();

  it.each([
    ['a new problem opens its alert', [], observe([p]), [{ action: 'open', problem: p }]],
    [
      'a problem back after it resolved opens again',
      [alert(p, 'resolved')],
      observe([p]),
      [{ action: 'open', problem: p }],
    ],
    ['a problem still present within the interval does nothing', [alert(p, 'firing', 10)], observe([p]), []],
    [
      'a problem still present past the interval is re-notified once, with the count seen',
      [alert(p, 'firing', 241, 2)],
      observe([p]),
      [{ action: 'renotify', problem: p, seen: 2, episode: 1 }],
    ],
    [
      'a problem said differently is restated without a notification',
      [alert({ ...p, summary: 'old totals' }, 'firing', 10)],
      observe([p]),
      [{ action: 'restate', problem: p }],
    ],
    [
      'a checked problem that is gone resolves',
      [alert(p, 'firing')],
      observe([], [p.key]),
      [{ action: 'resolve', key: p.key, episode: 1 }],
    ],
    ['a problem that could not be checked stays firing', [alert(p, 'firing')], observe([], []), []],
    [
      'an alert of a brokerage no longer known resolves',
      [alert(problem('dead_work', 'gone'), 'firing')],
      observe([], []),
      [{ action: 'resolve', key: problemKey('dead_work', 'gone'), episode: 1 }],
    ],
    [
      'a resolved alert whose problem stays gone does nothing',
      [alert(p, 'resolved')],
      observe([], [p.key]),
      [],
    ],
  ])('%s', (_name, alerts, observed, expected) => {
    expect(alertActions(alerts, observed, now, 240 * 60_000)).toEqual(expected);
  });

  it('never re-notifies when reminders are off', () => {
    expect(alertActions([alert(p, 'firing', 10_000)], observe([p]), now, null)).toEqual([]);
  });

  it('keys a credential alert by its remote, so the service and the CRM are told apart', () => {
    expect(problemKey('credential_refused', 'acme', 'crm')).toBe('credential_refused:acme:crm');
    expect(problemKey('credential_refused', 'acme', 'cash-offer')).not.toBe(
      problemKey('credential_refused', 'acme', 'crm'),
    );
  });
});
