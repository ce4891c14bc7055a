import { readFileSync, statSync } from 'node:fs';
import { timingSafeEqual, createHash } from 'node:crypto';

// The admin credential: ADMIN_TOKEN, or the contents of ADMIN_TOKEN_FILE, read again whenever the
// file changes (a rotated secret file needs no restart). Compared in constant time; never logged.
export class AdminTokenSource {
  private cached: { mtimeMs: number; token: string } | undefined;

  constructor(
    private readonly token: string | undefined,
    private readonly file: string | undefined,
    private readonly onToken: (token: string) => void = () => undefined,
  ) {
    if (token) onToken(token);
  }

  get required(): boolean {
    return !!this.token || !!this.file;
  }

  // Throws, naming the file (never its content), when the file cannot be read or is too short.
  current(): string | undefined {
    if (this.token) return this.token;
    if (!this.file) return undefined;
    const { mtimeMs } = statSync(this.file);
    if (this.cached?.mtimeMs !== mtimeMs) {
      const token = readFileSync(this.file, 'utf8').trim();
      if (token.length < 16)
        throw new Error(`ADMIN_TOKEN_FILE ${this.file} must hold a token of at least 16 characters`);
      this.onToken(token);
      this.cached = { mtimeMs, token };
    }
    return this.cached.token;
  }

  matches(candidate: string | undefined): boolean {
    const token = this.current();
    if (!token || candidate === undefined) return false;
    // Hashes of equal length, so neither the length nor the content leaks through timing.
    const digest = (v: string) => createHash('sha256').update(v).digest();
    return timingSafeEqual(digest(candidate), digest(token));
  }
}
