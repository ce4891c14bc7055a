import { Body, Get, HttpCode, Param, Post } from '@nestjs/common';
import { FubState } from '../fub-emulator.state';
import { badRequest, scalarText, type StoredRecord } from '../fub-emulator.types';
import { id, object } from '../fub-emulator.values';
import { FubApiController } from './fub-api.decorators';

const noteView = (note: StoredRecord) => ({
  id: note.id,
  created: note.created,
  updated: note.updated,
  ...note.fields,
});

// /v1/notes: notes belong to people (crm-apis.md B3, B6).
@FubApiController('notes')
export class NotesController {
  constructor(private readonly state: FubState) {}

  @Post()
  @HttpCode(201)
  create(@Body() body: unknown) {
    const b = object(body);
    const personId = Number(b.personId);
    if (!b.personId) throw badRequest('personId is required');
    this.state.get('people', personId);
    return noteView(
      this.state.create('notes', {
        personId,
        subject: b.subject ?? '',
        body: scalarText(b.body),
        isHtml: b.isHtml === true,
      }),
    );
  }

  @Get(':id')
  get(@Param('id') nid: string) {
    return noteView(this.state.get('notes', id(nid)));
  }
}
