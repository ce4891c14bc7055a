import { randomBytes } from 'node:crypto';

export const SESSION_COOKIE = 'cos_admin_session';
// How long a browser stays signed in (stated on the login page and in docs/operations.md).
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

// Signed-in browsers of this process: an opaque random id per session, kept in memory (a restart
// signs everyone out; each worker on PostgreSQL has its own).
export class AdminSessions {
  private readonly sessions = new Map<string, number>();

  constructor(private readonly now: () => number = () => Date.now()) {}

  open(): { id: string; maxAgeSeconds: number } {
    this.prune();
    const id = randomBytes(32).toString('base64url');
    this.sessions.set(id, this.now() + SESSION_LIFETIME_MS);
    return { id, maxAgeSeconds: SESSION_LIFETIME_MS / 1000 };
  }

  valid(id: string | undefined): boolean {
    if (!id) return false;
    const expires = this.sessions.get(id);
    if (expires === undefined) return false;
    if (expires <= this.now()) {
      this.sessions.delete(id);
      return false;
    }
    return true;
  }

  close(id: string | undefined): void {
    if (id) this.sessions.delete(id);
  }

  private prune(): void {
    const now = this.now();
    for (const [id, expires] of this.sessions) if (expires <= now) this.sessions.delete(id);
  }
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}
