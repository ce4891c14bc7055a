import { Body, Get, HttpCode, Post } from '@nestjs/common';
import { fieldsPage } from '../fub-emulator.fields-page';
import { FubState } from '../fub-emulator.state';
import { object } from '../fub-emulator.values';
import { FubApiController } from './fub-api.decorators';
import { SearchParams } from './fub.request';

// /v1/customFields: people's custom fields (crm-apis.md B2, B6).
@FubApiController('customFields')
export class CustomFieldsController {
  constructor(private readonly state: FubState) {}

  @Get()
  list(@SearchParams() query: URLSearchParams) {
    return fieldsPage(this.state, 'people', 'customfields', query);
  }

  @Post()
  @HttpCode(201)
  create(@Body() body: unknown) {
    return this.state.createField('people', object(body));
  }
}

// /v1/dealCustomFields (crm-apis.md B3, B6).
@FubApiController('dealCustomFields')
export class DealCustomFieldsController {
  constructor(private readonly state: FubState) {}

  @Get()
  list(@SearchParams() query: URLSearchParams) {
    return fieldsPage(this.state, 'deals', 'dealCustomfields', query);
  }

  @Post()
  @HttpCode(201)
  create(@Body() body: unknown) {
    return this.state.createField('deals', object(body));
  }
}
