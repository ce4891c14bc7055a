import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

// The most recently written file under `dir` (at any depth) whose name passes `named`: how the
// suites that run compiled code tell a build older than what it was built from.
export function newestFile(
  dir: string,
  named: (name: string) => boolean = () => true,
): { path: string; mtimeMs: number } {
  let newest = { path: dir, mtimeMs: 0 };
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !named(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    const { mtimeMs } = statSync(path);
    if (mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
  }
  return newest;
}
