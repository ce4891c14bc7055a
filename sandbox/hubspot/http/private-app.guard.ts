import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { HubSpotHttpError } from '../emulator.errors';
import { missingScope, requiredScope } from '../emulator.scopes';
import { pathOf, requestOf } from './emulator.request';
import { PrivateAppTokens } from './private-app.tokens';

const CHECKS_SCOPES = 'hubspot-emulator:checks-scopes';

// Marks the routes whose calls need the scope HubSpot names for their method and path (an unknown
// path is answered 404 whatever the token's scopes).
export const ChecksScopes = (): ClassDecorator & MethodDecorator => SetMetadata(CHECKS_SCOPES, true);

function unauthenticated(): HubSpotHttpError {
  return new HubSpotHttpError(
    401,
    'INVALID_AUTHENTICATION',
    'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
  );
}

// A private-app token in `Authorization: Bearer <token>`, then the scope the call needs.
@Injectable()
export class PrivateAppGuard implements CanActivate {
  constructor(
    private readonly tokens: PrivateAppTokens,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const req = requestOf(context);
    const header = req.headers.authorization;
    const scopes = header?.startsWith('Bearer ') ? this.tokens.scopesOf(header.slice(7)) : undefined;
    if (!scopes) throw unauthenticated();
    const checks = this.reflector.getAllAndOverride<boolean | undefined>(CHECKS_SCOPES, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (checks) {
      const scope = requiredScope(req.method, pathOf(req));
      if (scope && !scopes.includes(scope)) throw missingScope(scope);
    }
    return true;
  }
}
