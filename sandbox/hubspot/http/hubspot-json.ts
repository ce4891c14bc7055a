import { StreamableFile } from '@nestjs/common';
import type { Response } from 'express';

// HubSpot's own Content-Type, spelled as its API sends it (express would write "; charset=utf-8").
const HUBSPOT_JSON = 'application/json;charset=utf-8';

function bytesOf(body: unknown): Buffer {
  return Buffer.from(JSON.stringify(body));
}

// A handler's answer as Nest sends bytes: with HubSpot's Content-Type and a Content-Length.
export function jsonFile(body: unknown): StreamableFile {
  const bytes = bytesOf(body);
  return new StreamableFile(bytes, { type: HUBSPOT_JSON, length: bytes.length });
}

// The same bytes written by the exception filter; a 204 (or no body) is sent empty.
export function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status);
  if (status === 204 || body === undefined) {
    res.end();
    return;
  }
  const bytes = bytesOf(body);
  res.setHeader('Content-Type', HUBSPOT_JSON);
  res.setHeader('Content-Length', bytes.length);
  res.end(bytes);
}
