import { Body, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { dealFields, dealMatcher, dealView } from '../fub-emulator.deals';
import { listRecords } from '../fub-emulator.list';
import { FubState } from '../fub-emulator.state';
import { id, object } from '../fub-emulator.values';
import { FubApiController } from './fub-api.decorators';
import { SearchParams } from './fub.request';

// /v1/deals (crm-apis.md B3, B6; DELETE: https://docs.followupboss.com/reference/deals-id-delete).
@FubApiController('deals')
export class DealsController {
  constructor(private readonly state: FubState) {}

  @Get()
  list(@SearchParams() query: URLSearchParams) {
    const page = listRecords(
      this.state.records.deals.values(),
      query,
      'deals',
      '-id',
      dealMatcher(this.state),
    );
    return { _metadata: page.metadata, deals: page.items.map((d) => dealView(this.state, d)) };
  }

  @Post()
  @HttpCode(201)
  create(@Body() body: unknown) {
    const fields = dealFields(this.state, object(body), true);
    return dealView(this.state, this.state.create('deals', fields));
  }

  @Get(':id')
  get(@Param('id') did: string) {
    return dealView(this.state, this.state.get('deals', id(did)));
  }

  @Put(':id')
  @HttpCode(200)
  update(@Param('id') did: string, @Body() body: unknown) {
    const n = id(did);
    this.state.get('deals', n);
    const fields = dealFields(this.state, object(body), false);
    return dealView(this.state, this.state.update('deals', n, fields));
  }

  // The deal stays, with status Deleted (FubState.remove); 204 without a body, as for people.
  @Delete(':id')
  @HttpCode(204)
  remove(@Param('id') did: string): void {
    this.state.remove('deals', id(did));
  }
}
