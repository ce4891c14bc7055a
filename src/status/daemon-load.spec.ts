import type { Alert, Run } from '../ledger';
import { JOB_NAMES } from '../scheduler/job.types';
import { ago, daemonLoadOf } from './daemon-load';
import type { BrokerageView } from './status-snapshot.service';

const NOW = new Date('2026-12-01T12:00:00Z');

function view(missingHere: string[], runs: Partial<Run>[] = []): BrokerageView {
  return {
    id: 'acme',
    file: null,
    enabled: false,
    loadProblems: missingHere.map((m) => `acme.yaml (acme): ${m}`),
    missingHere,
    jobs: JOB_NAMES.map((job, i) => ({
      job,
      nextRun: null,
      backoff: {} as never,
      ...(runs[i] ? { lastRun: runs[i] as Run } : {}),
    })),
    outbox: {},
    inbox: {},
    errors: [],
    commands: [],
    events: [],
    totals: { errors: 0, commands: 0, events: 0 },
    offers: {} as never,
  };
}

const at = (secondsAgo: number) => new Date(NOW.getTime() - secondsAgo * 1000);

describe('daemonLoadOf', () => {
  it('is null for a brokerage that loads here, or fails for the file itself', () => {
    expect(daemonLoadOf(view([]), [], NOW)).toBeNull();
  });

  it("takes the newest run of any job within the window as the daemon's", () => {
    const load = daemonLoadOf(
      view(
        ['X is not set here'],
        [
          { startedAt: at(3600), finishedAt: at(3599) },
          { startedAt: at(13), finishedAt: at(12), owner: 'h/1' },
        ],
      ),
      [],
      NOW,
    );
    expect(load).toEqual({
      missingHere: ['X is not set here'],
      daemonRunsIt: true,
      daemonLastRunAt: at(12).toISOString(),
      windowMinutes: 15,
    });
    expect(ago(load?.daemonLastRunAt ?? '', NOW)).toBe('12 s ago');
  });

  it('says why not: no recent run, the daemon failing to load it too, or its process gone', () => {
    const old = daemonLoadOf(
      view(['X is not set here'], [{ startedAt: at(16 * 60), finishedAt: at(16 * 60) }]),
      [],
      NOW,
    );
    expect(old).toMatchObject({
      daemonRunsIt: false,
      reason: 'the daemon has not run it in the last 15 min either',
    });
    const unloaded = daemonLoadOf(
      view(['X is not set here'], [{ startedAt: at(5), finishedAt: at(5) }]),
      [{ kind: 'brokerage_unloaded', brokerageId: 'acme' } as Alert],
      NOW,
    );
    expect(unloaded).toMatchObject({ daemonRunsIt: false, reason: 'the daemon failed to load it too' });
    const gone = daemonLoadOf(
      view(['X is not set here'], [{ startedAt: at(5), finishedAt: at(5), owner: 'host/42' }]),
      [],
      NOW,
      (owner) => owner === 'host/42',
    );
    expect(gone).toMatchObject({
      daemonRunsIt: false,
      reason: 'the daemon that ran it (host/42) has stopped',
    });
  });
});
