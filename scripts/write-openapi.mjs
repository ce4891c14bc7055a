// `npm run openapi`: writes the OpenAPI document generated from the wire classes
// (src/cash-offer/schema/*.dto.ts) to docs/openapi.json. wire.openapi.spec.ts fails when the
// committed file is stale.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { openApiDocsText, OPENAPI_DOCS_PATH } = require('../dist/src/cash-offer/schema/wire.openapi.js');
writeFileSync(new URL(`../${OPENAPI_DOCS_PATH}`, import.meta.url), openApiDocsText());
console.log(`wrote ${OPENAPI_DOCS_PATH}`);
