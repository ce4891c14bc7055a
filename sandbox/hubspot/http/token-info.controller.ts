import { Body, Controller, HttpCode, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import { HubSpotHttpError } from '../emulator.errors';
import { EMULATOR_APP_ID, EMULATOR_PORTAL_ID } from './emulator.options';
import { HubSpotReplyInterceptor } from './hubspot-reply.interceptor';
import { PrivateAppGuard } from './private-app.guard';
import { PrivateAppTokens } from './private-app.tokens';
import { RequestLogInterceptor } from './request-log.interceptor';

// What HubSpot tells a private app about a token: its portal and scopes (HubSpot's private-apps
// docs). Any valid token may ask; it is not rate limited.
@Controller('oauth/v2/private-apps/get/access-token-info')
@UseGuards(PrivateAppGuard)
@UseInterceptors(RequestLogInterceptor, HubSpotReplyInterceptor)
export class TokenInfoController {
  constructor(private readonly tokens: PrivateAppTokens) {}

  @Post()
  @HttpCode(200)
  tokenInfo(@Body() body: unknown) {
    const tokenKey = (body as { tokenKey?: unknown } | undefined)?.tokenKey;
    const scopes = typeof tokenKey === 'string' ? this.tokens.scopesOf(tokenKey) : undefined;
    if (!scopes) throw new HubSpotHttpError(404, 'OBJECT_NOT_FOUND', 'Access token not found');
    return { userId: 1, hubId: EMULATOR_PORTAL_ID, appId: EMULATOR_APP_ID, scopes: [...scopes] };
  }
}
