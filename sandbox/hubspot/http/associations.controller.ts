import { Body, Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { AssociationsService } from '../emulator.associations.service';
import { SearchParams } from './emulator.request';
import { PortalApi } from './portal-api.decorator';

// The v4 associations of one record.
@Controller('crm/v4/objects/:fromType/:fromId/associations')
@PortalApi()
export class AssociationsController {
  constructor(private readonly associations: AssociationsService) {}

  @Put('default/:toType/:toId')
  @HttpCode(200)
  createDefault(
    @Param('fromType') fromType: string,
    @Param('fromId') fromId: string,
    @Param('toType') toType: string,
    @Param('toId') toId: string,
  ) {
    return this.associations.createDefault(fromType, fromId, toType, toId);
  }

  @Put(':toType/:toId')
  @HttpCode(201)
  createLabelled(
    @Param('fromType') fromType: string,
    @Param('fromId') fromId: string,
    @Param('toType') toType: string,
    @Param('toId') toId: string,
    @Body() body: unknown,
  ) {
    return this.associations.createLabelled(fromType, fromId, toType, toId, body);
  }

  @Get(':toType')
  @HttpCode(200)
  page(
    @Param('fromType') fromType: string,
    @Param('fromId') fromId: string,
    @Param('toType') toType: string,
    @SearchParams() query: URLSearchParams,
  ) {
    return this.associations.page(fromType, fromId, toType, query);
  }

  @Delete(':toType/:toId')
  @HttpCode(204)
  archive(
    @Param('fromType') fromType: string,
    @Param('fromId') fromId: string,
    @Param('toType') toType: string,
    @Param('toId') toId: string,
  ): void {
    this.associations.archivePair(fromType, fromId, toType, toId);
  }
}
