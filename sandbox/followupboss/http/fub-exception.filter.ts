import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { FubHttpError } from '../fub-emulator.types';

// Every failure answers FUB's error JSON `{ errorMessage }` with the error's headers (Retry-After
// and the rate-limit headers on a 429).
@Catch()
export class FubExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('FollowUpBossEmulator');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.destroyed || res.headersSent) return;
    const { status, message, headers } = this.answerFor(exception);
    res.status(status).set(headers).json({ errorMessage: message });
  }

  private answerFor(e: unknown): { status: number; message: string; headers: Record<string, string> } {
    if (e instanceof FubHttpError) return { status: e.status, message: e.message, headers: e.headers };
    if (e instanceof HttpException) return { status: e.getStatus(), message: e.message, headers: {} };
    this.logger.error(
      `unexpected emulator failure: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
    );
    return { status: 500, message: 'Internal error', headers: {} };
  }
}
