import { hostname } from 'node:os';

// Who holds a run: `<host>/<pid>`. A SQLite ledger is one file on one host, used by the daemon and by
// the operator's CLI (`cli sync`) at the same time, so whether a holder is still alive can be asked
// of the operating system. What a live holder is doing (its run, the outbox commands it marked
// `sending`, the inbox events it marked `processing`) is never recovered from under it.
export interface RunOwners {
  // This process.
  readonly self: string;
  alive(owner: string): boolean;
}

export function processOwner(host: string = hostname(), pid: number = process.pid): string {
  return `${host}/${pid}`;
}

// The operating system's answer. A holder on another host cannot be asked and counts as gone: a
// SQLite ledger is not shared across hosts (PostgreSQL is, and its workers never use this check).
// A pid the system reused after a crash makes a dead holder look alive until that process ends;
// the run then waits for it instead of being recovered early, which is the safe side.
export class SystemRunOwners implements RunOwners {
  readonly self = processOwner();

  alive(owner: string): boolean {
    if (owner === this.self) return true;
    const slash = owner.lastIndexOf('/');
    const pid = Number(owner.slice(slash + 1));
    if (slash < 0 || owner.slice(0, slash) !== hostname() || !Number.isInteger(pid) || pid <= 0) return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      // EPERM: it exists, under another user.
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
}
