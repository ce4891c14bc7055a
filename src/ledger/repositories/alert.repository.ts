import { In, LessThanOrEqual, type EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { Alert, type AlertState } from '../entities/alert.entity';
import { AlertDelivery } from '../entities/alert-delivery.entity';
import { LedgerTransactions } from '../ledger-transactions';

// What an alert says when it opens or is re-notified.
export interface AlertOpening {
  key: string;
  kind: string;
  brokerageId: string;
  summary: string;
  more: string;
}

// A notification to write for each channel, built from the alert as it is after the change.
export type NoticeBuilder = (
  alert: Alert,
  transition: 'firing' | 'renotify' | 'resolved',
) => Record<string, unknown>;

export interface AlertChange {
  alert: Alert;
  // False when another worker (or an earlier tick) made this change first: nothing was written.
  changed: boolean;
}

export interface ChannelHealth {
  channel: string;
  delivered: number;
  pending: number;
  failed: number;
  // The latest attempt's error, when the latest finished delivery failed or one is being retried.
  lastError: string | null;
  lastDeliveredAt: Date | null;
}

// Alerts and their deliveries. Every change of an alert's state is a conditional update of its row
// and the deliveries it causes, in one transaction: of two workers seeing the same problem, one
// changes the row and writes the notifications, the other changes nothing.
export class AlertRepository {
  constructor(
    private readonly tx: LedgerTransactions,
    private readonly clock: Clock,
  ) {}

  open(opening: AlertOpening, channels: string[], notice: NoticeBuilder): Promise<AlertChange> {
    return this.tx
      .run(async (m) => {
        const now = this.clock.now();
        const existing = await m.findOne(Alert, { where: { key: opening.key } });
        if (existing?.state === 'firing') {
          if (existing.summary !== opening.summary || existing.more !== opening.more)
            await m.update(Alert, { key: opening.key }, { summary: opening.summary, more: opening.more });
          return { alert: { ...existing, ...opening }, changed: false };
        }
        const fields = {
          summary: opening.summary,
          more: opening.more,
          state: 'firing' as const,
          openedAt: now,
          notifiedAt: now,
          renotified: 0,
          resolvedAt: null,
        };
        let alert: Alert;
        if (!existing) {
          alert = await m.save(Alert, m.create(Alert, { ...opening, ...fields, episode: 1 }));
        } else {
          const episode = existing.episode + 1;
          const result = await m
            .createQueryBuilder()
            .update(Alert)
            .set({ ...fields, episode })
            .where('key = :key AND state = :state', { key: opening.key, state: 'resolved' })
            .execute();
          if ((result.affected ?? 0) === 0) return { alert: existing, changed: false };
          alert = { ...existing, ...fields, episode };
        }
        await this.deliver(m, alert, 'firing', channels, notice);
        return { alert, changed: true };
      })
      .catch((error: unknown) => {
        // Another worker inserted the same alert first (the key is the primary key).
        if (isUniqueViolation(error))
          return this.get(opening.key).then((a) => ({ alert: a!, changed: false }));
        throw error;
      });
  }

  // Resolves the episode the caller saw firing: one another worker opened since (the problem came
  // back after the caller looked) stands.
  resolve(
    key: string,
    episode: number,
    channels: string[],
    notice: NoticeBuilder,
  ): Promise<AlertChange | null> {
    return this.tx.run(async (m) => {
      const existing = await m.findOne(Alert, { where: { key } });
      if (!existing) return null;
      if (existing.state !== 'firing' || existing.episode !== episode)
        return { alert: existing, changed: false };
      const now = this.clock.now();
      const result = await m
        .createQueryBuilder()
        .update(Alert)
        .set({ state: 'resolved', resolvedAt: now })
        .where('key = :key AND state = :state AND episode = :episode', {
          key,
          state: 'firing',
          episode,
        })
        .execute();
      if ((result.affected ?? 0) === 0) return { alert: existing, changed: false };
      const alert = { ...existing, state: 'resolved' as const, resolvedAt: now };
      await this.deliver(m, alert, 'resolved', channels, notice);
      return { alert, changed: true };
    });
  }

  // A reminder of an alert still firing; `episode` and `seen` are the opening and the count of
  // reminders the caller saw, so two workers due at once send one, and an episode another worker
  // opened since is not reminded of at once.
  renotify(
    key: string,
    episode: number,
    seen: number,
    channels: string[],
    notice: NoticeBuilder,
  ): Promise<AlertChange | null> {
    return this.tx.run(async (m) => {
      const now = this.clock.now();
      const result = await m
        .createQueryBuilder()
        .update(Alert)
        .set({ renotified: seen + 1, notifiedAt: now })
        .where('key = :key AND state = :state AND episode = :episode AND renotified = :seen', {
          key,
          state: 'firing',
          episode,
          seen,
        })
        .execute();
      const alert = await m.findOne(Alert, { where: { key } });
      if (!alert) return null;
      if ((result.affected ?? 0) === 0) return { alert, changed: false };
      await this.deliver(m, alert, 'renotify', channels, notice);
      return { alert, changed: true };
    });
  }

  get(key: string): Promise<Alert | null> {
    return this.tx.exclusive((m) => m.findOne(Alert, { where: { key } }));
  }

  // Open alerts first (oldest first), then recently resolved ones (newest first).
  list(filter: { state?: AlertState; brokerageId?: string; limit?: number } = {}): Promise<Alert[]> {
    return this.tx.exclusive(async (m) => {
      const where = {
        ...(filter.state ? { state: filter.state } : {}),
        ...(filter.brokerageId !== undefined ? { brokerageId: filter.brokerageId } : {}),
      };
      const rows = await m.find(Alert, { where, take: filter.limit ?? 200, order: { openedAt: 'DESC' } });
      const firing = rows.filter((a) => a.state === 'firing').sort((a, b) => +a.openedAt - +b.openedAt);
      const resolved = rows
        .filter((a) => a.state === 'resolved')
        .sort((a, b) => +(b.resolvedAt ?? 0) - +(a.resolvedAt ?? 0));
      return [...firing, ...resolved];
    });
  }

  // Deliveries due now (pending, or `sending` whose sender stopped before finishing), each taken by
  // a conditional update so two workers never send the same one at once; `leaseMs` later it is due
  // again unless the sender recorded its outcome.
  claimDue(limit: number, leaseMs: number): Promise<AlertDelivery[]> {
    return this.tx.run(async (m) => {
      const now = this.clock.now();
      const due = await m.find(AlertDelivery, {
        where: { state: In(['pending', 'sending']), nextAttemptAt: LessThanOrEqual(now) },
        order: { id: 'ASC' },
        take: limit,
      });
      const claimed: AlertDelivery[] = [];
      const leaseUntil = new Date(now.getTime() + leaseMs);
      for (const d of due) {
        const result = await m
          .createQueryBuilder()
          .update(AlertDelivery)
          .set({ state: 'sending', nextAttemptAt: leaseUntil, attempts: d.attempts + 1 })
          .where('id = :id AND attempts = :attempts', { id: d.id, attempts: d.attempts })
          .execute();
        if ((result.affected ?? 0) > 0) claimed.push({ ...d, state: 'sending', attempts: d.attempts + 1 });
      }
      return claimed;
    });
  }

  async delivered(id: number): Promise<void> {
    await this.tx.run((m) =>
      m.update(AlertDelivery, { id }, { state: 'delivered', deliveredAt: this.clock.now(), lastError: null }),
    );
  }

  async retryAt(id: number, error: string, at: Date): Promise<void> {
    await this.tx.run((m) =>
      m.update(AlertDelivery, { id }, { state: 'pending', nextAttemptAt: at, lastError: error }),
    );
  }

  async failed(id: number, error: string): Promise<void> {
    await this.tx.run((m) => m.update(AlertDelivery, { id }, { state: 'failed', lastError: error }));
  }

  deliveries(filter: { alertKey?: string; limit?: number } = {}): Promise<AlertDelivery[]> {
    return this.tx.exclusive((m) =>
      m.find(AlertDelivery, {
        where: filter.alertKey ? { alertKey: filter.alertKey } : {},
        order: { id: 'DESC' },
        take: filter.limit ?? 100,
      }),
    );
  }

  // Per channel: how its deliveries stand, and the latest error while it is failing.
  channelHealth(): Promise<ChannelHealth[]> {
    return this.tx.exclusive(async (m) => {
      const counts: { channel: string; state: string; n: string | number }[] = await m
        .createQueryBuilder(AlertDelivery, 'd')
        .select('d.channel', 'channel')
        .addSelect('d.state', 'state')
        .addSelect('COUNT(*)', 'n')
        .groupBy('d.channel')
        .addGroupBy('d.state')
        .getRawMany();
      const channels = [...new Set(counts.map((c) => c.channel))].sort();
      const health: ChannelHealth[] = [];
      for (const channel of channels) {
        const n = (state: string) =>
          Number(counts.find((c) => c.channel === channel && c.state === state)?.n ?? 0);
        const latest = await m.findOne(AlertDelivery, {
          where: { channel, state: In(['delivered', 'failed', 'pending', 'sending']) },
          order: { id: 'DESC' },
        });
        const lastDelivered = await m.findOne(AlertDelivery, {
          where: { channel, state: 'delivered' },
          order: { id: 'DESC' },
        });
        health.push({
          channel,
          delivered: n('delivered'),
          pending: n('pending') + n('sending'),
          failed: n('failed'),
          lastError: latest && latest.state !== 'delivered' ? latest.lastError : null,
          lastDeliveredAt: lastDelivered?.deliveredAt ?? null,
        });
      }
      return health;
    });
  }

  private async deliver(
    m: EntityManager,
    alert: Alert,
    transition: 'firing' | 'renotify' | 'resolved',
    channels: string[],
    notice: NoticeBuilder,
  ): Promise<void> {
    const now = this.clock.now();
    const round = transition === 'renotify' ? alert.renotified : 0;
    for (const channel of channels) {
      const delivery = m.create(AlertDelivery, {
        dedupeKey: `${alert.key}#${alert.episode}:${transition}:${round}:${channel}`,
        alertKey: alert.key,
        channel,
        notice: notice(alert, transition),
        state: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        lastError: null,
        createdAt: now,
        deliveredAt: null,
      });
      await m.save(AlertDelivery, delivery);
    }
  }
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; driverError?: { code?: string } };
  const code = e?.driverError?.code ?? e?.code;
  // SQLite: SQLITE_CONSTRAINT_PRIMARYKEY / _UNIQUE; PostgreSQL: unique_violation.
  return code === '23505' || (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT'));
}
