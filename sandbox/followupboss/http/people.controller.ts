import { Body, Delete, Get, HttpCode, Param, Post, Put, Res } from '@nestjs/common';
import type { Response } from 'express';
import { commonFilters, listRecords } from '../fub-emulator.list';
import { personFields, personView, personWithEmail } from '../fub-emulator.people';
import { FubState } from '../fub-emulator.state';
import { id, object } from '../fub-emulator.values';
import { FubApiController } from './fub-api.decorators';
import { SearchParams } from './fub.request';

// /v1/people (crm-apis.md B2, B6; DELETE: https://docs.followupboss.com/reference/people-id-delete).
@FubApiController('people')
export class PeopleController {
  constructor(private readonly state: FubState) {}

  @Get()
  list(@SearchParams() query: URLSearchParams) {
    const page = listRecords(this.state.records.people.values(), query, 'people', '-created', commonFilters);
    const fields = page.q.fields ?? null;
    return { _metadata: page.metadata, people: page.items.map((p) => personView(p, fields)) };
  }

  // ?deduplicate=true answers 200 with the person already holding the email, unchanged.
  @Post()
  create(@Body() body: unknown, @SearchParams() query: URLSearchParams, @Res() res: Response): void {
    const fields = personFields(this.state, object(body), true);
    const match = query.get('deduplicate') === 'true' ? personWithEmail(this.state, fields) : undefined;
    if (match) res.status(200).json(personView(match, 'allFields'));
    else res.status(201).json(personView(this.state.create('people', fields), 'allFields'));
  }

  @Get(':id')
  get(@Param('id') pid: string, @SearchParams() query: URLSearchParams) {
    return personView(this.state.get('people', id(pid)), query.get('fields'));
  }

  @Put(':id')
  @HttpCode(200)
  update(@Param('id') pid: string, @Body() body: unknown) {
    const n = id(pid);
    this.state.get('people', n);
    const fields = personFields(this.state, object(body), false);
    return personView(this.state.update('people', n, fields), 'allFields');
  }

  // FUB's reference names no answer body; the emulator answers 204 with none, as for webhooks.
  @Delete(':id')
  @HttpCode(204)
  remove(@Param('id') pid: string): void {
    this.state.remove('people', id(pid));
  }
}
