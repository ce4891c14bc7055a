import { Controller, Get, HttpCode, Param, Query } from '@nestjs/common';
import { EmulatorState } from '../emulator.state';
import { PortalApi } from './portal-api.decorator';

// HubSpot's owners API (https://developers.hubspot.com/docs/api/crm/owners): read-only, owner ids
// for hubspot_owner_id. Needs the crm.objects.owners.read scope.
@Controller('crm/v3/owners')
@PortalApi()
export class OwnersController {
  constructor(private readonly state: EmulatorState) {}

  @Get()
  @HttpCode(200)
  list(
    @Query('email') email?: string,
    @Query('after') after?: string,
    @Query('limit') limit?: string,
    @Query('archived') archived?: string,
  ) {
    return this.state.owners.list({
      ...(email ? { email } : {}),
      ...(after ? { after } : {}),
      ...(limit ? { limit: Number(limit) } : {}),
      archived: archived === 'true',
    });
  }

  @Get(':ownerId')
  @HttpCode(200)
  get(
    @Param('ownerId') id: string,
    @Query('idProperty') idProperty?: string,
    @Query('archived') archived?: string,
  ) {
    return this.state.owners.get(id, idProperty === 'userId' ? 'userId' : 'id', archived === 'true');
  }
}
