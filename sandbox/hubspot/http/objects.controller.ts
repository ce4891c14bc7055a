import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ObjectsService } from '../emulator.objects.service';
import { SearchParams } from './emulator.request';
import { PortalApi } from './portal-api.decorator';

// CRM objects one at a time (contacts, deals, notes by name or HubSpot's type id).
@Controller('crm/v3/objects/:objectType')
@PortalApi()
export class ObjectsController {
  constructor(private readonly objects: ObjectsService) {}

  @Post()
  @HttpCode(201)
  create(@Param('objectType') type: string, @Body() body: unknown) {
    return this.objects.create(type, body);
  }

  @Get()
  @HttpCode(200)
  page(@Param('objectType') type: string, @SearchParams() query: URLSearchParams) {
    return this.objects.page(type, query);
  }

  @Get(':objectId')
  @HttpCode(200)
  get(
    @Param('objectType') type: string,
    @Param('objectId') id: string,
    @SearchParams() query: URLSearchParams,
  ) {
    return this.objects.get(type, id, query);
  }

  @Patch(':objectId')
  @HttpCode(200)
  update(
    @Param('objectType') type: string,
    @Param('objectId') id: string,
    @SearchParams() query: URLSearchParams,
    @Body() body: unknown,
  ) {
    return this.objects.update(type, id, query, body);
  }

  @Delete(':objectId')
  @HttpCode(204)
  archive(@Param('objectType') type: string, @Param('objectId') id: string): void {
    this.objects.archive(type, id);
  }
}
