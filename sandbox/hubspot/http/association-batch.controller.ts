import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { AssociationBatchService } from '../emulator.association-batch.service';
import { PortalApi } from './portal-api.decorator';

// v4 associations between two object types: the batch calls and the association labels.
@Controller('crm/v4/associations/:fromType/:toType')
@PortalApi()
export class AssociationBatchController {
  constructor(private readonly links: AssociationBatchService) {}

  @Post('batch/associate/default')
  @HttpCode(200)
  associateDefault(@Param('fromType') from: string, @Param('toType') to: string, @Body() body: unknown) {
    return this.links.associateDefault(from, to, body);
  }

  @Post('batch/create')
  create(@Param('fromType') from: string, @Param('toType') to: string, @Body() body: unknown) {
    return this.links.create(from, to, body);
  }

  @Post('batch/read')
  read(@Param('fromType') from: string, @Param('toType') to: string, @Body() body: unknown) {
    return this.links.read(from, to, body);
  }

  @Post('batch/archive')
  @HttpCode(204)
  archive(@Param('fromType') from: string, @Param('toType') to: string, @Body() body: unknown): void {
    this.links.archive(from, to, body);
  }

  @Get('labels')
  @HttpCode(200)
  labels(@Param('fromType') from: string, @Param('toType') to: string) {
    return this.links.labels(from, to);
  }

  @Post('labels')
  @HttpCode(200)
  createLabel(@Param('fromType') from: string, @Param('toType') to: string, @Body() body: unknown) {
    return this.links.createLabel(from, to, body);
  }
}
