import { CanActivate, ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { randomBytes, timingSafeEqual } from 'node:crypto';

// A random token per daemon process, put in every form the page renders. A cross-site page cannot
// read it, so it cannot forge a post; a restart invalidates old pages (reload them).
export class ConsoleFormToken {
  readonly value = randomBytes(32).toString('base64url');

  matches(candidate: unknown): boolean {
    if (typeof candidate !== 'string') return false;
    const [a, b] = [Buffer.from(candidate), Buffer.from(this.value)];
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

// Guards the page's POSTs: the form token must match, and a browser that says where the post comes
// from (Origin, Sec-Fetch-Site) must say it comes from this page's own origin.
@Injectable()
export class ConsoleFormGuard implements CanActivate {
  constructor(private readonly token: ConsoleFormToken) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none')
      throw new ForbiddenException(`refused a ${site} post to the console`);
    const origin = req.headers.origin;
    // `Origin: null` (a sandboxed frame, a file: page) is another origin too.
    const own = [`http://${req.headers.host}`, `https://${req.headers.host}`];
    if (origin !== undefined && !own.includes(origin))
      throw new ForbiddenException(`refused a post from another origin (${origin})`);
    const body = req.body as Record<string, unknown> | undefined;
    if (!this.token.matches(body?._csrf))
      throw new ForbiddenException('the form is stale or forged; reload the status page and try again');
    return true;
  }
}
