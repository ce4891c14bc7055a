import { Body, Controller, Get, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { UiChanges } from '../emulator.ui-changes';
import { HubSpotReplyInterceptor } from './hubspot-reply.interceptor';

// Control routes that act as a person in HubSpot's UI (unauthenticated, as all of /__control).
@Controller('__control')
@UseInterceptors(HubSpotReplyInterceptor)
export class UiChangesController {
  constructor(private readonly uiChanges: UiChanges) {}

  // 200 with the record when written now, 202 when queued before a call (UiChanges decides).
  @Post('objects/:objectType/:objectId/ui-change')
  change(@Param('objectType') type: string, @Param('objectId') id: string, @Body() body: unknown) {
    return this.uiChanges.change(type, id, body);
  }

  @Get('ui-changes')
  @HttpCode(200)
  list(): Record<string, unknown> {
    return this.uiChanges.list();
  }
}
