import { Inject, Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { DAEMON_SETTINGS, type DaemonSettings } from '../../config/daemon-settings';
import { SecretRedactor } from '../../observability/logging/secret-redactor';
import { isWebhookPath } from '../../common/webhook-path';
import { adminHostNames, hostNameOf, isAllowedHost } from './admin-hosts';
import { AdminSessions, cookieValue, SESSION_COOKIE } from './admin-sessions';
import { AdminTokenSource } from './admin-token.source';
import { WrongTokenLimit, type TokenVerdict } from './wrong-token-limit';
import { crossSitePost } from '../../common/post-origin';

// Routes that need nothing: a supervisor's probes, and the way in.
const OPEN_PATHS = new Set(['/health/live', '/health/ready', '/login']);

// What the admin listener lets through (docs/operations.md, "The admin listener"):
// 1. only requests whose Host is one of its own names (no DNS rebinding), health included;
// 2. with ADMIN_TOKEN (or ADMIN_TOKEN_FILE) set, every route but health and the login form needs
//    `Authorization: Bearer <token>` or a signed-in session cookie; an address that presented ten
//    wrong tokens in five minutes is refused (429) for the rest of them (wrong-token-limit.ts);
// 3. a post from a browser must come from this listener's own origin (no `Origin: null`).
@Injectable()
export class AdminAccess {
  readonly token: AdminTokenSource;
  readonly sessions = new AdminSessions();
  private readonly wrongTokens = new WrongTokenLimit();
  private readonly hosts: Set<string>;

  constructor(@Inject(DAEMON_SETTINGS) settings: DaemonSettings, redactor: SecretRedactor) {
    this.token = new AdminTokenSource(settings.adminToken, settings.adminTokenFile, (token) =>
      redactor.register(token),
    );
    this.hosts = adminHostNames(settings.adminHost, settings.adminAllowedHosts);
  }

  // Express middleware, installed on the app before any route (daemon.ts).
  readonly gate = (req: Request, res: Response, next: NextFunction): void => {
    // Webhook routes belong to the other listener (keepWebhooksOffAdmin answers them here).
    if (isWebhookPath(req.url)) return next();
    if (!isAllowedHost(req.headers.host, this.hosts)) {
      refuse(
        res,
        421,
        `this listener does not answer to the host "${hostNameOf(req.headers.host) ?? ''}"; add it to ADMIN_ALLOWED_HOSTS`,
      );
      return;
    }
    const crossSite =
      req.method === 'POST'
        ? crossSitePost(req.headers, (host) => isAllowedHost(host, this.hosts))
        : undefined;
    if (crossSite) {
      refuse(res, 403, crossSite);
      return;
    }
    if (!this.token.required || OPEN_PATHS.has(req.path)) return next();
    this.admit(req, res, next).catch(next);
  };

  // A token presented by the sign-in form or a bearer header, checked within the address's budget
  // of wrong ones.
  checkToken(req: Request, token: string | undefined): Promise<TokenVerdict> {
    return this.wrongTokens.check(req.socket.remoteAddress ?? 'unknown', () => this.token.matches(token));
  }

  private async admit(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (this.sessions.valid(cookieValue(req.headers.cookie, SESSION_COOKIE))) return next();
    // The scheme is case-insensitive (RFC 9110 §11.1).
    const bearer = /^bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (bearer !== undefined) {
      const verdict = await this.checkToken(req, bearer);
      if (verdict.right) return next();
      if (verdict.retryAfterSeconds !== undefined) {
        res.setHeader('retry-after', String(verdict.retryAfterSeconds));
        refuse(res, 429, tooManyWrongTokens(verdict.retryAfterSeconds));
        return;
      }
    }
    if (req.method === 'GET' && (req.headers.accept ?? '').includes('text/html')) {
      res.redirect(303, `/login?next=${encodeURIComponent(req.originalUrl)}`);
      return;
    }
    res.setHeader('www-authenticate', 'Bearer realm="cash-offer-sync admin"');
    refuse(res, 401, 'this route needs Authorization: Bearer <ADMIN_TOKEN>, or sign in at /login');
  }
}

export function tooManyWrongTokens(retryAfterSeconds: number): string {
  return `too many wrong tokens from this address: try again in ${retryAfterSeconds} s`;
}

function refuse(res: Response, status: number, message: string): void {
  res
    .status(status)
    .type('application/json')
    .send(JSON.stringify({ statusCode: status, message }));
}
