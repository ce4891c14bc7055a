// The one rule for when a worker sharing a PostgreSQL ledger counts as dead: it wrote no heartbeat
// (worker_heartbeats, on the database's clock) for this many of its intervals. Six leaves room for
// a busy event loop or a slow database to miss a few beats before a live worker's jobs are taken
// from it, and still notices a SIGKILLed one in seconds rather than after its pg-boss lease.
export const MISSED_BEATS_BEFORE_DEAD = 6;

// A worker whose database session is gone (LivenessSession: its process died and took its
// connection with it) is dead once it has also missed this many beats. Its next beat would have
// opened the session again had the process lived through a broken connection (a server restart, a
// dropped network), so two leave one beat's room for a slow one.
export const MISSED_BEATS_WITH_SESSION_GONE = 2;

export interface WorkerDeath {
  // Silent this long: dead, whatever its session says (a host gone without closing its connections).
  silentSeconds: number;
  // Silent this long with its session gone: dead.
  sessionGoneSeconds: number;
}

export function workerDeath(heartbeatSeconds: number): WorkerDeath {
  return {
    silentSeconds: deadAfterSeconds(heartbeatSeconds),
    sessionGoneSeconds: MISSED_BEATS_WITH_SESSION_GONE * heartbeatSeconds,
  };
}

export function deadAfterSeconds(heartbeatSeconds: number): number {
  return MISSED_BEATS_BEFORE_DEAD * heartbeatSeconds;
}

// Rows of workers silent this long are deleted (by any worker's beat): far past dead, so a fleet
// whose workers disagree a little on WORKER_HEARTBEAT_SECONDS never prunes a live one's row.
export const HEARTBEAT_ROWS_KEPT_SECONDS = 3600;
