import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { errorBody, HubSpotHttpError } from '../emulator.errors';
import type { EmulatorRequest } from './emulator.request';
import { sendJson } from './hubspot-json';
import { RateLimited } from './rate-limits';
import { RequestLog } from './request.log';

interface ErrorAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

function randomId(): string {
  return Math.random().toString(16).slice(2) + Date.now().toString(16);
}

// 429 bodies carry the fields the SDK's retry decorator reads (policyName, the secondly message).
function rateLimited(error: RateLimited): ErrorAnswer {
  const message =
    error.policy === 'SECONDLY'
      ? 'You have reached your secondly limit.'
      : 'You have reached your ten_secondly_rolling limit.';
  const body = errorBody('RATE_LIMITS', message, { errorType: 'RATE_LIMIT', policyName: error.policy });
  return { status: 429, body: { ...body, requestId: randomId() }, headers: error.headers };
}

// Every failure answers HubSpot's error object `{ status: 'error', message, correlationId, category }`
// and is written to the request log with its status.
@Catch()
export class HubSpotExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HubSpotEmulator');

  constructor(private readonly log: RequestLog) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<EmulatorRequest>();
    const res = http.getResponse<Response>();
    const answer = this.answerFor(exception);
    this.log.record(req, answer.status);
    if (res.headersSent || res.destroyed) return;
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    sendJson(res, answer.status, answer.body);
  }

  private answerFor(e: unknown): ErrorAnswer {
    if (e instanceof RateLimited) return rateLimited(e);
    if (e instanceof HubSpotHttpError) return { status: e.status, body: e.body(), headers: e.headers };
    // Nest's and express's own refusals keep their status, in HubSpot's shape.
    if (e instanceof HttpException) {
      const category = e.getStatus() === 404 ? 'OBJECT_NOT_FOUND' : 'VALIDATION_ERROR';
      return { status: e.getStatus(), body: errorBody(category, e.message), headers: {} };
    }
    const message = e instanceof Error ? e.message : String(e);
    this.logger.error(`unexpected emulator failure: ${e instanceof Error ? (e.stack ?? message) : message}`);
    return { status: 500, body: errorBody('INTERNAL_ERROR', `Internal error: ${message}`), headers: {} };
  }
}
