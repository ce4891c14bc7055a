import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { EarlyRunTrigger } from '../scheduler/early-run.trigger';
import type { JobName } from '../scheduler/job.types';

// HubSpot's search index shows a change only after a lag of seconds (up to a minute, see the
// adapter's searchLagMs), and a webhook often arrives before it: the run it starts at once may not
// see the change yet. So after each notification a few more early runs follow, at growing delays up
// to the lag the adapter allows for; one schedule per (brokerage, job), restarted by the next
// notification, each run coalesced with one already waiting. Kept in memory: a restart loses at most
// these follow-ups, and the cron poll still covers the change.
export const HUBSPOT_FOLLOW_UP_DELAYS_MS = [3_000, 10_000, 30_000, 60_000];

@Injectable()
export class FollowUpRuns implements OnApplicationShutdown {
  private readonly logger = new Logger(FollowUpRuns.name);
  private readonly timers = new Map<string, NodeJS.Timeout[]>();
  private stopped = false;

  constructor(private readonly trigger: EarlyRunTrigger) {}

  schedule(
    brokerageId: string,
    job: JobName,
    delaysMs: readonly number[] = HUBSPOT_FOLLOW_UP_DELAYS_MS,
  ): void {
    if (this.stopped) return;
    const key = `${brokerageId}\u0000${job}`;
    this.cancel(key);
    const timers = delaysMs.map((delay) => {
      const timer = setTimeout(() => {
        this.trigger
          .request(brokerageId, job)
          .catch((error: unknown) =>
            this.logger.debug(`follow-up ${job} for ${brokerageId} not asked for: ${String(error)}`),
          );
      }, delay);
      timer.unref();
      return timer;
    });
    this.timers.set(key, timers);
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    this.cancelAll();
  }

  // Drops every follow-up not yet asked for.
  cancelAll(): void {
    for (const key of [...this.timers.keys()]) this.cancel(key);
  }

  private cancel(key: string): void {
    for (const timer of this.timers.get(key) ?? []) clearTimeout(timer);
    this.timers.delete(key);
  }
}
