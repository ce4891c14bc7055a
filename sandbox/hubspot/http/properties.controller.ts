import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { PropertiesService, PropertyGroupsService } from '../emulator.properties.service';
import { PortalApi } from './portal-api.decorator';

// Property groups; `groups` is a path of its own, never a property named so.
@Controller('crm/v3/properties/:objectType/groups')
@PortalApi()
export class PropertyGroupsController {
  constructor(private readonly groups: PropertyGroupsService) {}

  @Get()
  @HttpCode(200)
  list(@Param('objectType') type: string) {
    return this.groups.list(type);
  }

  @Post()
  @HttpCode(201)
  create(@Param('objectType') type: string, @Body() body: unknown) {
    return this.groups.create(type, body);
  }

  @Get(':groupName')
  @HttpCode(200)
  get(@Param('objectType') type: string, @Param('groupName') name: string) {
    return this.groups.get(type, name);
  }

  @Patch(':groupName')
  @HttpCode(200)
  update(@Param('objectType') type: string, @Param('groupName') name: string, @Body() body: unknown) {
    return this.groups.update(type, name, body);
  }

  @Delete(':groupName')
  @HttpCode(204)
  archive(@Param('objectType') type: string, @Param('groupName') name: string): void {
    this.groups.archive(type, name);
  }
}

// Batch calls on property definitions; `batch` is a path of its own, never a property named so.
@Controller('crm/v3/properties/:objectType/batch')
@PortalApi()
export class PropertyBatchController {
  constructor(private readonly properties: PropertiesService) {}

  @Post('create')
  create(@Param('objectType') type: string, @Body() body: unknown) {
    return this.properties.createBatch(type, body);
  }
}

@Controller('crm/v3/properties/:objectType')
@PortalApi()
export class PropertiesController {
  constructor(private readonly properties: PropertiesService) {}

  @Get()
  @HttpCode(200)
  list(@Param('objectType') type: string) {
    return this.properties.list(type);
  }

  @Post()
  @HttpCode(201)
  create(@Param('objectType') type: string, @Body() body: unknown) {
    return this.properties.create(type, body);
  }

  @Get(':propertyName')
  @HttpCode(200)
  get(@Param('objectType') type: string, @Param('propertyName') name: string) {
    return this.properties.get(type, name);
  }

  @Patch(':propertyName')
  @HttpCode(200)
  update(@Param('objectType') type: string, @Param('propertyName') name: string, @Body() body: unknown) {
    return this.properties.update(type, name, body);
  }

  @Delete(':propertyName')
  @HttpCode(204)
  archive(@Param('objectType') type: string, @Param('propertyName') name: string): void {
    this.properties.archive(type, name);
  }
}
