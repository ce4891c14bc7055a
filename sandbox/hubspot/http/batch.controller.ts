import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { BatchService } from '../emulator.batch.service';
import { SearchParams } from './emulator.request';
import { PortalApi } from './portal-api.decorator';

// Batch calls on CRM objects; a batch with failed inputs answers 207 (BatchService decides).
@Controller('crm/v3/objects/:objectType/batch')
@PortalApi()
export class BatchController {
  constructor(private readonly batch: BatchService) {}

  @Post('create')
  create(@Param('objectType') type: string, @Body() body: unknown) {
    return this.batch.create(type, body);
  }

  @Post('read')
  read(@Param('objectType') type: string, @SearchParams() query: URLSearchParams, @Body() body: unknown) {
    return this.batch.read(type, query, body);
  }

  @Post('update')
  update(@Param('objectType') type: string, @Body() body: unknown) {
    return this.batch.update(type, body);
  }

  @Post('upsert')
  upsert(@Param('objectType') type: string, @Body() body: unknown) {
    return this.batch.upsert(type, body);
  }

  @Post('archive')
  @HttpCode(204)
  archive(@Param('objectType') type: string, @Body() body: unknown): void {
    this.batch.archive(type, body);
  }
}
