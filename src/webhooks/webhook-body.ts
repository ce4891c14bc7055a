import type { INestApplication } from '@nestjs/common';
import { json, raw, type NextFunction, type Request, type Response } from 'express';

export const WEBHOOK_BODY_LIMIT_BYTES = 256 * 1024;
// A CRM's change notification names events and ids only (FUB splits large batches).
export const CRM_WEBHOOK_BODY_LIMIT_BYTES = 64 * 1024;

// Webhook routes get the raw bytes (any content type, size-limited: 413 above the limit) so a
// malformed body can be kept as it came; every other route parses JSON as usual. Requires the app
// to be created with `bodyParser: false`.
export function configureHttpBodyParsing(app: INestApplication, limitBytes = WEBHOOK_BODY_LIMIT_BYTES): void {
  app.use(
    '/webhooks/crm',
    raw({ type: () => true, limit: Math.min(limitBytes, CRM_WEBHOOK_BODY_LIMIT_BYTES) }),
  );
  app.use('/webhooks', raw({ type: () => true, limit: limitBytes }));
  app.use('/webhooks', passOversizeToTheRoute);
  app.use(json({ limit: '1mb' }));
}

// A delivery over the limit, unread (its bytes were drained, not kept): what the route gets as its
// body instead, so the intake can say whose delivery it refused before answering 413. A compressed
// body is limited as inflated, so its size as sent may be under the limit: `encoding` says so.
export class OversizeBody {
  constructor(
    readonly bytes: number,
    readonly limitBytes: number,
    readonly encoding?: string,
  ) {}

  get reason(): string {
    if (this.encoding === undefined)
      return `the body of ${this.bytes} bytes is over the ${this.limitBytes}-byte limit`;
    return `the body, ${this.bytes} bytes as sent (${this.encoding}), inflates past the ${this.limitBytes}-byte limit`;
  }
}

interface BodyParserError {
  type?: string;
  length?: number;
  received?: number;
  limit?: number;
}

// The service's deliveries only: a CRM's change notification carries no data the daemon uses, so
// its 413 stays the body parser's.
function passOversizeToTheRoute(error: unknown, req: Request, _res: Response, next: NextFunction): void {
  const parserError = error as BodyParserError | undefined;
  if (parserError?.type !== 'entity.too.large' || req.originalUrl.startsWith('/webhooks/crm/')) {
    next(error);
    return;
  }
  const declared = Number(req.headers['content-length']);
  const bytes = parserError.length ?? (Number.isFinite(declared) ? declared : (parserError.received ?? 0));
  const encoding = req.headers['content-encoding']?.trim().toLowerCase();
  const compressed = encoding !== undefined && encoding !== '' && encoding !== 'identity';
  req.body = new OversizeBody(bytes, parserError.limit ?? 0, compressed ? encoding.slice(0, 40) : undefined);
  next();
}
