import type { INestApplication } from '@nestjs/common';
import { json, raw } from 'express';

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
  app.use(json({ limit: '1mb' }));
}
