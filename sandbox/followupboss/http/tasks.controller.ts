import { Body, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { listRecords } from '../fub-emulator.list';
import { FubState } from '../fub-emulator.state';
import { keepCompletionTime, taskFields, taskMatcher, taskView } from '../fub-emulator.tasks';
import { id, object } from '../fub-emulator.values';
import { FubApiController } from './fub-api.decorators';
import { SearchParams } from './fub.request';

// /v1/tasks (docs.followupboss.com/reference/tasks-get, tasks-post, tasks-id-get, tasks-id-put,
// tasks-id-delete): listed like every collection (fub-emulator.list.ts), filtered by personId.
@FubApiController('tasks')
export class TasksController {
  constructor(private readonly state: FubState) {}

  @Get()
  list(@SearchParams() query: URLSearchParams) {
    const page = listRecords(this.state.records.tasks.values(), query, 'tasks', '-id', taskMatcher);
    return { _metadata: page.metadata, tasks: page.items.map(taskView) };
  }

  @Post()
  @HttpCode(201)
  create(@Body() body: unknown) {
    return taskView(this.state.create('tasks', taskFields(this.state, object(body), true)));
  }

  @Get(':id')
  get(@Param('id') tid: string) {
    return taskView(this.state.get('tasks', id(tid)));
  }

  @Put(':id')
  @HttpCode(200)
  update(@Param('id') tid: string, @Body() body: unknown) {
    const n = id(tid);
    const before = this.state.get('tasks', n);
    const fields = keepCompletionTime(before, taskFields(this.state, object(body), false));
    return taskView(this.state.update('tasks', n, fields));
  }

  // FUB's reference names no answer body; the emulator answers 204 with none, as for people and deals.
  @Delete(':id')
  @HttpCode(204)
  remove(@Param('id') tid: string): void {
    this.state.remove('tasks', id(tid));
  }
}
