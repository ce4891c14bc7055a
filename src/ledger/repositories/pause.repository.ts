import { Clock } from '../../common/clock';
import { CREDENTIAL_REMOTES, credentialPauseJob, Pause, WHOLE_BROKERAGE } from '../entities/pause.entity';
import { LedgerTransactions } from '../ledger-transactions';

// Pauses per (brokerage, job); `job` undefined means the whole brokerage.
export class PauseRepository {
  constructor(
    private readonly tx: LedgerTransactions,
    private readonly clock: Clock,
  ) {}

  // Pausing what is already paused keeps the first time and replaces the reason.
  pause(brokerageId: string, job: string | undefined, reason = ''): Promise<Pause> {
    return this.tx.run(async (m) => {
      const key = { brokerageId, job: job ?? WHOLE_BROKERAGE };
      const existing = await m.findOne(Pause, { where: key });
      const row = existing ?? m.create(Pause, { ...key, pausedAt: this.clock.now() });
      row.reason = reason;
      return m.save(Pause, row);
    });
  }

  // True when there was such a pause.
  async resume(brokerageId: string, job: string | undefined): Promise<boolean> {
    const result = await this.tx.run((m) => m.delete(Pause, { brokerageId, job: job ?? WHOLE_BROKERAGE }));
    return (result.affected ?? 0) > 0;
  }

  list(brokerageId?: string): Promise<Pause[]> {
    return this.tx.exclusive((m) =>
      m.find(Pause, {
        where: brokerageId === undefined ? {} : { brokerageId },
        order: { brokerageId: 'ASC', job: 'ASC' },
      }),
    );
  }

  // The pause that stops this job: the brokerage's own first, then a refused credential's, then the
  // job's.
  async pauseOf(brokerageId: string, job: string): Promise<Pause | null> {
    const rows = await this.tx.exclusive((m) =>
      m.find(Pause, {
        where: [
          { brokerageId, job: WHOLE_BROKERAGE },
          ...CREDENTIAL_REMOTES.map((remote) => ({ brokerageId, job: credentialPauseJob(remote) })),
          { brokerageId, job },
        ],
      }),
    );
    return (
      rows.find((r) => r.job === WHOLE_BROKERAGE) ??
      rows.find((r) => r.job !== job) ??
      rows[0] ??
      null
    );
  }
}
