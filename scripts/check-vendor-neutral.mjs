// Fails the build when the sync layer names a CRM vendor or one of its fields: flows speak the
// CRM port's words only (docs/architecture.md). Run by `npm run lint`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const DIRS = ['src/sync'];
const VENDOR_WORDS =
  /hubspot|hubapi|follow\s*up\s*boss|followupboss|\bfub\b|dealname|dealstage|hs_[a-z_]+|lastmodifieddate|\bcustom[A-Z][A-Za-z]+/gi;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

const problems = [];
for (const dir of DIRS) {
  for (const path of files(join(ROOT, dir))) {
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const match of line.matchAll(VENDOR_WORDS)) {
          problems.push(`${relative(ROOT, path)}:${i + 1}: "${match[0]}" names a CRM vendor or its field`);
        }
      });
  }
}
if (problems.length > 0) {
  console.error(
    `${problems.join('\n')}\nThe sync layer must speak the CRM port's words only (src/crm/crm-roles.ts).`,
  );
  process.exit(1);
}
