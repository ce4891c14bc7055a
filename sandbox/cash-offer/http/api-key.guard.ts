import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { keyRefused } from '../sandbox.errors';
import { SandboxStore } from '../sandbox.store';
import { requestOf } from './sandbox.request';

// Reads the key from `Authorization: <key>` or `Authorization: Bearer <key>`. It is the first step
// of every API call, so it also opens the call's log entry (a 401 is logged too).
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly store: SandboxStore) {}

  canActivate(context: ExecutionContext): boolean {
    const req = requestOf(context);
    req.apiCall = { started: performance.now(), logged: false };
    const header = req.headers.authorization;
    if (!header) throw keyRefused('the Authorization header with your API key is missing');
    const key = header.replace(/^Bearer\s+/i, '').trim();
    const account = this.store.accountsByKey.get(key);
    if (!account) throw keyRefused('the API key in the Authorization header is not valid');
    req.caller = account;
    return true;
  }
}
