import { Body, Controller, Get, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { escapeHtml } from '../console/html';
import { AdminAccess, tooManyWrongTokens } from './admin-access.service';
import { cookieValue, SESSION_COOKIE, SESSION_LIFETIME_MS } from './admin-sessions';
import { sameListenerPath } from './same-listener-path';

// The sign-in form of the admin listener, when ADMIN_TOKEN is set: the operator types the token
// once and the browser keeps a session cookie (HttpOnly, SameSite=Strict; Secure behind TLS).
@Controller()
export class AdminLoginController {
  constructor(private readonly access: AdminAccess) {}

  @Get('login')
  form(@Query('next') next: string | undefined, @Query('failed') failed: string | undefined): string {
    return loginPage(sameListenerPath(next), failed !== undefined ? 'That token is not right.' : undefined);
  }

  @Post('login')
  async signIn(
    @Body() body: Record<string, unknown> | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const next = sameListenerPath(typeof body?.next === 'string' ? body.next : undefined);
    const token = typeof body?.token === 'string' ? body.token.trim() : undefined;
    if (!this.access.token.required) {
      res.redirect(303, next);
      return;
    }
    // No token typed guesses nothing: not counted against the address.
    const verdict = token ? await this.access.checkToken(req, token) : { right: false as const };
    if (!verdict.right && verdict.retryAfterSeconds !== undefined) {
      res
        .status(429)
        .setHeader('retry-after', String(verdict.retryAfterSeconds))
        .type('html')
        .send(loginPage(next, tooManyWrongTokens(verdict.retryAfterSeconds)));
      return;
    }
    if (!verdict.right) {
      res.redirect(303, `/login?failed=1&next=${encodeURIComponent(next)}`);
      return;
    }
    const session = this.access.sessions.open();
    const secure = req.secure || req.headers['x-forwarded-proto'] === 'https' ? '; Secure' : '';
    res.setHeader(
      'set-cookie',
      `${SESSION_COOKIE}=${session.id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${session.maxAgeSeconds}${secure}`,
    );
    res.redirect(303, next);
  }

  @Post('logout')
  signOut(@Req() req: Request, @Res() res: Response): void {
    this.access.sessions.close(cookieValue(req.headers.cookie, SESSION_COOKIE));
    res.setHeader('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`);
    res.redirect(303, '/login');
  }
}

function loginPage(next: string, failure?: string): string {
  const hours = SESSION_LIFETIME_MS / 3_600_000;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in: cash-offer-sync</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem">
<h1>cash-offer-sync</h1>
<p>This admin listener needs its token (<code>ADMIN_TOKEN</code>). You stay signed in for ${hours} hours, or until the daemon restarts.</p>
${failure ? `<p role="alert" style="color:#a00"><strong>${escapeHtml(failure)}</strong></p>` : ''}
<form method="post" action="/login">
<input type="hidden" name="next" value="${escapeHtml(next)}">
<label>Token <input type="password" name="token" autocomplete="current-password" required style="width:100%"></label>
<p><button type="submit">Sign in</button></p>
</form></body></html>`;
}
