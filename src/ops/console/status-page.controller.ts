import { Body, Controller, Get, Post, Query, Redirect, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { ConsoleActions, type ActionForm } from './console-actions.service';
import { ConsoleFormGuard, ConsoleFormToken } from './console-form.guard';
import { StatusSnapshotService } from '../../status/status-snapshot.service';
import { NoticeBoard, type Notice } from './notice.board';
import { renderStatusPage } from './status-page.view';

// Served on the admin listener only (the webhook listener passes nothing but /webhooks/...).
// Strict headers: no script at all, forms only to this origin, never framed (no clickjacking).
const PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // same-origin, not no-referrer: under no-referrer a browser posts the forms with `Origin: null`,
  // which the admin listener refuses; links out (to the CRM) still carry no referrer.
  'Referrer-Policy': 'same-origin',
};

// The operator's status page and its actions, POST-redirect-GET.
@Controller()
export class StatusPageController {
  constructor(
    private readonly snapshots: StatusSnapshotService,
    private readonly actions: ConsoleActions,
    private readonly token: ConsoleFormToken,
    private readonly notices: NoticeBoard,
  ) {}

  @Get()
  @Redirect('/console', 302)
  root(): void {}

  @Get('console')
  async page(
    @Res() res: Response,
    @Query('notice') noticeId?: string,
    @Query('refresh') refresh?: string,
  ): Promise<void> {
    const seconds = Number(refresh);
    const body = renderStatusPage(await this.snapshots.read(), {
      token: this.token.value,
      notice: this.notices.read(noticeId),
      refreshSeconds: Number.isInteger(seconds) && seconds >= 2 && seconds <= 3600 ? seconds : undefined,
    });
    res.set(PAGE_HEADERS).send(body);
  }

  @Post('console/pause')
  @UseGuards(ConsoleFormGuard)
  async pause(@Body() form: ActionForm, @Res() res: Response): Promise<void> {
    this.back(res, form, await this.actions.pause(form));
  }

  @Post('console/resume')
  @UseGuards(ConsoleFormGuard)
  async resume(@Body() form: ActionForm, @Res() res: Response): Promise<void> {
    this.back(res, form, await this.actions.resume(form));
  }

  @Post('console/replay')
  @UseGuards(ConsoleFormGuard)
  async replay(@Body() form: ActionForm, @Res() res: Response): Promise<void> {
    this.back(res, form, await this.actions.replayRows(form));
  }

  @Post('console/run')
  @UseGuards(ConsoleFormGuard)
  async run(@Body() form: ActionForm, @Res() res: Response): Promise<void> {
    this.back(res, form, await this.actions.runNow(form));
  }

  // 303 See Other: the browser GETs the page, so a reload never repeats the action.
  private back(res: Response, form: ActionForm, notice: Notice): void {
    const anchor = typeof form.brokerage === 'string' ? `#b-${encodeURIComponent(form.brokerage)}` : '';
    const brokerageId = typeof form.brokerage === 'string' ? form.brokerage : undefined;
    res.redirect(303, `/console?notice=${this.notices.post({ ...notice, brokerageId })}${anchor}`);
  }
}
