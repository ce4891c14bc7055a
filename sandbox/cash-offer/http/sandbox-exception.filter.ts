import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { ApiError } from '../sandbox.errors';
import { SpecReadings } from '../spec-readings';
import { errorMessageUnder, errorStatus } from '../spec-readings.answers';
import { ConnectionDropped } from './api-call.interceptor';
import { CallLog } from './call.log';
import { SandboxRequest } from './sandbox.request';

interface ErrorAnswer {
  status: number;
  message: string;
  headers: Record<string, string>;
  // Only `{ message }`, as an API gateway answers (the `key-403-bare` reading).
  gateway?: boolean;
}

// Every failure answers the service's error object `{ error, message }` (error repeats the status),
// and an API call is logged with that status.
@Catch()
export class SandboxExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('CashOfferSandbox');

  constructor(
    private readonly calls: CallLog,
    private readonly readings: SpecReadings,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (exception instanceof ConnectionDropped) return;
    const http = host.switchToHttp();
    const req = http.getRequest<SandboxRequest>();
    const res = http.getResponse<Response>();
    const answer = this.answerFor(exception, req.apiCall !== undefined);
    this.calls.record(req, answer.status);
    if (res.destroyed || res.headersSent) return;
    const body = answer.gateway
      ? { message: answer.message }
      : { error: answer.status, message: answer.message };
    res.status(answer.status).set(answer.headers).json(body);
  }

  // `api`: an API call (not the control API), answered under the `errorCodes` reading.
  private answerFor(e: unknown, api: boolean): ErrorAnswer {
    if (e instanceof ApiError) {
      if (!api) return { status: e.status, message: e.message, headers: e.headers };
      const codes = this.readings.current.errorCodes;
      const message = errorMessageUnder(e.message, e.kind, codes);
      return {
        status: errorStatus(e.status, e.kind, codes),
        message,
        headers: e.headers,
        gateway: message !== e.message,
      };
    }
    if (e instanceof HttpException) return { status: e.getStatus(), message: e.message, headers: {} };
    this.logger.error(
      `unexpected sandbox failure: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
    );
    return { status: 500, message: 'the sandbox failed unexpectedly; see its log', headers: {} };
  }
}
