import { formatReport, runCrashSoak, SOAK_SHAPES, type SoakShape } from './crash-soak';
import { runSoakScript } from './soak-processes';
import { envInt } from './soak-env';
import { drawReadings } from './readings-sweep';
import { SoakRandom } from './soak-random';

// `npm run soak:readings`: short crash soaks, each against a service answering a combination of the
// spec readings drawn from the seed (readings-sweep.ts). SWEEP_SEED (default: random, printed),
// SWEEP_RUNS (4), SWEEP_KILLS (12 per run), SWEEP_DEALS (12 per run), SWEEP_SHAPE (sqlite-hubspot,
// sqlite-fub or postgres-workers; default: each run draws one of the SQLite shapes), SWEEP_OPERATOR
// (1: the operator's `cli sync` runs beside the daemon on SQLite, each failed or crashed one a
// finding; default 0). Each run prints its readings and its replay command (SOAK_SPEC_READINGS=...).
// Exit code 1 when any run found a violation, did not settle, or had a CLI run fail.

async function main(): Promise<void> {
  const seed = envInt('SWEEP_SEED', Math.floor(Math.random() * 2 ** 31));
  const runs = envInt('SWEEP_RUNS', 4);
  const kills = envInt('SWEEP_KILLS', 12);
  const deals = envInt('SWEEP_DEALS', 12);
  const fixedShape = process.env.SWEEP_SHAPE;
  const operator = envInt('SWEEP_OPERATOR', 0) !== 0;
  if (fixedShape && !(SOAK_SHAPES as readonly string[]).includes(fixedShape))
    throw new Error(`SWEEP_SHAPE must be one of ${SOAK_SHAPES.join(', ')}, not ${fixedShape}`);
  const random = new SoakRandom(seed);
  console.log(`readings sweep: seed ${seed}, ${runs} runs of ${kills} kills and ${deals} deals`);
  const failed: string[] = [];
  for (let run = 1; run <= runs; run++) {
    const readings = JSON.stringify(drawReadings(random));
    const shape = (fixedShape ?? random.pick(['sqlite-hubspot', 'sqlite-fub'])) as SoakShape;
    const runSeed = Math.floor(random.next() * 2 ** 31);
    const operatorRuns = operator && shape !== 'postgres-workers';
    // The soak's processes (the sandbox among them) read the readings from the environment.
    process.env.SOAK_SPEC_READINGS = readings;
    console.log(`\nrun ${run}/${runs}: ${shape}, seed ${runSeed}\n  readings ${readings}`);
    const result = await runCrashSoak({
      shape,
      seed: runSeed,
      kills,
      deals,
      operatorRuns,
      reconsider: true,
      log: (line) => console.log(`  [soak] ${line}`),
    });
    console.log(formatReport(result).replace(/^/gm, '  '));
    console.log(
      `  replay this run: SOAK_SPEC_READINGS='${readings}' SOAK_SHAPE=${shape} SOAK_SEED=${runSeed} SOAK_KILLS=${kills} SOAK_DEALS=${deals} SOAK_OPERATOR=${operatorRuns ? 1 : 0} npm run soak:crash`,
    );
    if (result.violations.length > 0 || !result.settled || result.cliUnexpected > 0)
      failed.push(`run ${run} (${shape}, seed ${runSeed})`);
  }
  console.log(
    `\nreadings sweep seed ${seed}: ${runs - failed.length} of ${runs} runs clean${failed.length ? `; failed: ${failed.join(', ')}` : ''}`,
  );
  process.exit(failed.length > 0 ? 1 : 0);
}

runSoakScript(main);
