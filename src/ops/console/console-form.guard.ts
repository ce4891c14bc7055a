import { CanActivate, ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { crossSitePost } from '../../common/post-origin';

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
    const crossSite = crossSitePost(req.headers);
    if (crossSite) throw new ForbiddenException(`${crossSite} to the console`);
    const body = req.body as Record<string, unknown> | undefined;
    if (!this.token.matches(body?._csrf))
      throw new ForbiddenException('the form is stale or forged; reload the status page and try again');
    return true;
  }
}
