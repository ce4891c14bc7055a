import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { SearchService } from '../emulator.search.service';
import { SearchLimit } from './portal-limits.interceptor';
import { PortalApi } from './portal-api.decorator';

@Controller('crm/v3/objects/:objectType/search')
@PortalApi()
export class SearchController {
  constructor(private readonly searches: SearchService) {}

  @Post()
  @HttpCode(200)
  @SearchLimit()
  search(@Param('objectType') type: string, @Body() body: unknown) {
    return this.searches.search(type, body);
  }
}
