// `npm run lint:graph`: one dependency-cruiser cruise (its JSON on stdin) checked two ways, the
// rules of .dependency-cruiser.cjs (reported as `depcruise --output-type err` reports them) and the
// directory cycles at every depth (check-folder-cycles.mjs). One cruise, not one per check: each
// cruise reads and parses the whole tree again.
import { readFileSync } from 'node:fs';
import { format } from 'dependency-cruiser';
import { FOLDER_CYCLES_ADVICE, folderCycleProblems } from './check-folder-cycles.mjs';

const cruise = JSON.parse(readFileSync(0, 'utf8'));

const rules = await format(cruise, { outputType: 'err' });
process.stdout.write(rules.output);

const problems = folderCycleProblems(cruise);
if (problems.length > 0) console.error(`${problems.join('\n')}\n${FOLDER_CYCLES_ADVICE}`);

if (rules.exitCode !== 0 || problems.length > 0) process.exit(1);
