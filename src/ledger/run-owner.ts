import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

// Who holds a run: `<host>/<pid>`. A SQLite ledger is one file on one host, used by the daemon and by
// the operator's CLI (`cli sync`) at the same time, so whether a holder is still alive can be asked
// of the operating system. What a live holder is doing (its run, the outbox commands it marked
// `sending`, the inbox events it marked `processing`) is never recovered from under it.
// On PostgreSQL a process is `<host>/<pid>#<start>`, the start a random tag of this process start:
// a container restarted with the same host name and pid (pid 1) must not look like its dead
// predecessor, whose heartbeat and runs the fleet judges by owner (worker-liveness.ts).
export interface RunOwners {
  // This process.
  readonly self: string;
  alive(owner: string): boolean;
}

export function processOwner(host: string = hostname(), pid: number = process.pid): string {
  return `${host}/${pid}`;
}

// This process start's owner on a shared (PostgreSQL) ledger.
export function workerOwner(host: string = hostname(), pid: number = process.pid): string {
  return `${processOwner(host, pid)}#${randomBytes(4).toString('hex')}`;
}

// The host and pid an owner names (either form), or undefined when it names none.
export function ownerProcess(owner: string): { host: string; pid: number; tagged: boolean } | undefined {
  const hash = owner.indexOf('#');
  const plain = hash < 0 ? owner : owner.slice(0, hash);
  const slash = plain.lastIndexOf('/');
  const pid = Number(plain.slice(slash + 1));
  if (slash < 0 || !Number.isInteger(pid) || pid <= 0) return undefined;
  return { host: plain.slice(0, slash), pid, tagged: hash >= 0 };
}

// The operating system's answer. A holder on another host cannot be asked and counts as gone: a
// SQLite ledger is not shared across hosts (PostgreSQL is, and its workers never use this check).
// A pid the system reused after a crash makes a dead holder look alive until that process ends;
// the run then waits for it instead of being recovered early, which is the safe side. A tagged
// owner naming this very process but another start is a predecessor that had the same pid: gone.
export class SystemRunOwners implements RunOwners {
  constructor(readonly self: string = processOwner()) {}

  alive(owner: string): boolean {
    if (owner === this.self) return true;
    const named = ownerProcess(owner);
    if (!named || named.host !== hostname()) return false;
    if (named.tagged && named.pid === process.pid) return false;
    try {
      process.kill(named.pid, 0);
      return true;
    } catch (error) {
      // EPERM: it exists, under another user.
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
}
