import { Controller, Get, Param, StreamableFile } from '@nestjs/common';
import { buildOpenApiDocument } from '../../../src/cash-offer/schema/wire.openapi';
import { MediaSigner } from '../media.signer';
import { forbidden } from '../sandbox.errors';
import { SandboxAddress } from './sandbox.address';
import { API_PREFIX, SearchParams } from './sandbox.request';

// A small grey placeholder is enough: callers only check that the URL answers.
const PLACEHOLDER_PHOTO = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="3"><rect width="4" height="3" fill="#999"/></svg>',
);

// What answers without a key: the signed photo URLs of the active list and the OpenAPI document.
@Controller()
export class PublicController {
  private openApi?: unknown;

  constructor(
    private readonly signer: MediaSigner,
    private readonly address: SandboxAddress,
  ) {}

  @Get('media/:token')
  media(@Param('token') token: string, @SearchParams() query: URLSearchParams): StreamableFile {
    const check = this.signer.check(token, query.get('expires'), query.get('sig'));
    if (check !== 'valid')
      throw forbidden(
        check === 'expired'
          ? 'this signed media URL has expired (they are valid 10 minutes)'
          : 'this media URL is not signed correctly',
      );
    return new StreamableFile(PLACEHOLDER_PHOTO, { type: 'image/svg+xml', length: PLACEHOLDER_PHOTO.length });
  }

  @Get('api/v2/openapi.json')
  openApiDocument(): unknown {
    this.openApi ??= buildOpenApiDocument(`${this.address.url}${API_PREFIX}`);
    return this.openApi;
  }
}
