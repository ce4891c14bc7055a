import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApiDocument, OPENAPI_DOCS_PATH, openApiDocsText } from './wire.openapi';

describe('the OpenAPI document generated from the wire classes', () => {
  it('is committed as generated: run `npm run openapi` after changing a wire class', () => {
    const committed = readFileSync(join(__dirname, '../../..', OPENAPI_DOCS_PATH), 'utf8');
    expect(committed).toBe(openApiDocsText());
  });

  it('carries each field rule of the classes', () => {
    type Json = Record<string, Record<string, Record<string, Record<string, unknown>>>>;
    const schemas = (buildOpenApiDocument('/api/v2') as { components: { schemas: Json } }).components.schemas;
    expect(schemas.Property.properties.StreetName).toEqual({ type: 'string', maxLength: 50 });
    expect(schemas.Property.required).toEqual(['StateOrProvince', 'PostalCode', 'MlsStatus']);
    expect(schemas.Property.properties.Sewer).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect((schemas.Property.properties.Sewer.items as { enum: string[] }).enum).toContain('Public Sewer');
    expect(schemas.CreateOfferRequestBody.properties.request).toEqual({
      $ref: '#/components/schemas/RequestObject',
    });
    expect(schemas.Offer.properties.offer_amount).toMatchObject({ type: 'integer', minimum: 0 });
    expect(schemas.Error.required).toEqual(['error', 'message']);
  });
});
