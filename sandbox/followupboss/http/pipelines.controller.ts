import { Body, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { pipelineBody } from '../fub-emulator.pipelines';
import { FubState } from '../fub-emulator.state';
import { badRequest } from '../fub-emulator.types';
import { id, object } from '../fub-emulator.values';
import { FubApiController } from './fub-api.decorators';

// /v1/pipelines with their stages (a FUB docs discussion: docs/crm-followupboss.md).
@FubApiController('pipelines')
export class PipelinesController {
  constructor(private readonly state: FubState) {}

  @Get()
  list() {
    const all = [...this.state.pipelines.values()];
    return {
      _metadata: { collection: 'pipelines', offset: 0, limit: all.length, total: all.length },
      pipelines: all,
    };
  }

  @Post()
  @HttpCode(201)
  create(@Body() body: unknown) {
    const input = pipelineBody(object(body));
    if (!input.name) throw badRequest('name is required');
    return this.state.createPipeline({ name: input.name, stages: (input.stages ?? []).map((s) => s.name) });
  }

  @Put(':id')
  @HttpCode(200)
  update(@Param('id') pid: string, @Body() body: unknown) {
    return this.state.updatePipeline(id(pid), pipelineBody(object(body)));
  }
}
