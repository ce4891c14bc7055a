// The one rule for when a worker sharing a PostgreSQL ledger counts as dead: it wrote no heartbeat
// (worker_heartbeats, on the database's clock) for this many of its intervals. Six leaves room for
// a busy event loop or a slow database to miss a few beats before a live worker's jobs are taken
// from it, and still notices a SIGKILLed one in seconds rather than after its pg-boss lease.
export const MISSED_BEATS_BEFORE_DEAD = 6;

export function deadAfterSeconds(heartbeatSeconds: number): number {
  return MISSED_BEATS_BEFORE_DEAD * heartbeatSeconds;
}

// Rows of workers silent this long are deleted (by any worker's beat): far past dead, so a fleet
// whose workers disagree a little on WORKER_HEARTBEAT_SECONDS never prunes a live one's row.
export const HEARTBEAT_ROWS_KEPT_SECONDS = 3600;
