import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { keyRefused } from '../sandbox.errors';
import { SandboxStore } from '../sandbox.store';
import { SpecReadings, SpecReadingValues } from '../spec-readings';
import { requestOf } from './sandbox.request';

const BEARER = /^Bearer\s+/i;

// The key the header carries under the `authorizationForm` reading, or why it carries none.
export function keyFromHeader(
  header: string,
  form: SpecReadingValues['authorizationForm'],
): { key: string } | { refused: string } {
  const bearer = BEARER.test(header);
  if (form === 'bearer-only' && !bearer)
    return { refused: 'the Authorization header must be "Bearer <API key>"' };
  // Under key-only the whole header is the key, so a "Bearer " prefix makes it an unknown one.
  const key = form === 'key-only' ? header.trim() : header.replace(BEARER, '').trim();
  return { key };
}

// Reads the key from `Authorization: <key>` or `Authorization: Bearer <key>` (as the
// `authorizationForm` reading allows). It is the first step of every API call, so it also opens the
// call's log entry (a 401 is logged too).
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly store: SandboxStore,
    private readonly readings: SpecReadings,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const req = requestOf(context);
    req.apiCall = { started: performance.now(), logged: false };
    const header = req.headers.authorization;
    if (!header) throw keyRefused('the Authorization header with your API key is missing');
    const read = keyFromHeader(header, this.readings.current.authorizationForm);
    if ('refused' in read) throw keyRefused(read.refused);
    const account = this.store.accountsByKey.get(read.key);
    if (!account) throw keyRefused('the API key in the Authorization header is not valid');
    req.caller = account;
    return true;
  }
}
