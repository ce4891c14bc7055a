import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { PipelinesService } from '../emulator.pipelines.service';
import { PortalApi } from './portal-api.decorator';

// Deal pipelines and their stages.
@Controller('crm/v3/pipelines/:objectType')
@PortalApi()
export class PipelinesController {
  constructor(private readonly pipelines: PipelinesService) {}

  @Get()
  @HttpCode(200)
  list(@Param('objectType') type: string) {
    return this.pipelines.list(type);
  }

  @Post()
  @HttpCode(201)
  create(@Param('objectType') type: string, @Body() body: unknown) {
    return this.pipelines.create(type, body);
  }

  @Get(':pipelineId')
  @HttpCode(200)
  get(@Param('objectType') type: string, @Param('pipelineId') id: string) {
    return this.pipelines.get(type, id);
  }

  @Patch(':pipelineId')
  @HttpCode(200)
  update(@Param('objectType') type: string, @Param('pipelineId') id: string, @Body() body: unknown) {
    return this.pipelines.update(type, id, body);
  }

  @Delete(':pipelineId')
  @HttpCode(204)
  archive(@Param('objectType') type: string, @Param('pipelineId') id: string): void {
    this.pipelines.archive(type, id);
  }

  @Get(':pipelineId/stages')
  @HttpCode(200)
  listStages(@Param('objectType') type: string, @Param('pipelineId') id: string) {
    return this.pipelines.listStages(type, id);
  }

  @Post(':pipelineId/stages')
  @HttpCode(201)
  createStage(@Param('objectType') type: string, @Param('pipelineId') id: string, @Body() body: unknown) {
    return this.pipelines.createStage(type, id, body);
  }

  @Get(':pipelineId/stages/:stageId')
  @HttpCode(200)
  getStage(
    @Param('objectType') type: string,
    @Param('pipelineId') id: string,
    @Param('stageId') stageId: string,
  ) {
    return this.pipelines.getStage(type, id, stageId);
  }

  @Patch(':pipelineId/stages/:stageId')
  @HttpCode(200)
  updateStage(
    @Param('objectType') type: string,
    @Param('pipelineId') id: string,
    @Param('stageId') stageId: string,
    @Body() body: unknown,
  ) {
    return this.pipelines.updateStage(type, id, stageId, body);
  }

  @Delete(':pipelineId/stages/:stageId')
  @HttpCode(204)
  archiveStage(
    @Param('objectType') type: string,
    @Param('pipelineId') id: string,
    @Param('stageId') stageId: string,
  ): void {
    this.pipelines.archiveStage(type, id, stageId);
  }
}
