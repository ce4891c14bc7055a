import { BUYER_SOAK_SHAPES, formatBuyerReport, runBuyerSoak, type BuyerSoakShape } from './buyer-soak';
import { runSoakScript } from './soak-processes';
import { envInt } from './soak-env';

// `npm run soak:buyer`: SOAK_SHAPE (sqlite-hubspot, sqlite-fub or postgres-workers; default sqlite-hubspot), SOAK_SEED (default: random, printed), SOAK_KILLS (200), SOAK_ASKS (contacts
// the buyer agent flags; default from the kill count), SOAK_LISTINGS (other agents' listings at the
// start, 30), SOAK_KEEP (1: keep the work dir), and the crash soak's SOAK_SPEC_READINGS,
// SOAK_CASH_OFFER_FAULTS, SOAK_HUBSPOT_FAULTS and SOAK_FUB_FAULTS (soak/crash-soak.main.ts). Exit code 1 on any
// violation or when the daemon did not settle.
function envShape(): BuyerSoakShape {
  const raw = process.env.SOAK_SHAPE || 'sqlite-hubspot';
  if (!(BUYER_SOAK_SHAPES as readonly string[]).includes(raw))
    throw new Error(`SOAK_SHAPE must be one of ${BUYER_SOAK_SHAPES.join(', ')}, not ${raw}`);
  return raw as BuyerSoakShape;
}

async function main(): Promise<void> {
  const shape = envShape();
  const seed = envInt('SOAK_SEED', Math.floor(Math.random() * 2 ** 31));
  const kills = envInt('SOAK_KILLS', 200);
  const readings = process.env.SOAK_SPEC_READINGS?.trim();
  console.log(
    `buyer soak: shape ${shape}, seed ${seed}, kills ${kills}` +
      (readings ? `, spec readings ${readings}` : ''),
  );
  const result = await runBuyerSoak({
    shape,
    seed,
    kills,
    ...(process.env.SOAK_ASKS ? { asks: envInt('SOAK_ASKS', 0) } : {}),
    listings: envInt('SOAK_LISTINGS', 30),
    keepDir: envInt('SOAK_KEEP', 0) !== 0,
    log: (line) => console.log(`[soak] ${line}`),
  });
  console.log(formatBuyerReport(result, envInt('SOAK_KEEP', 0) !== 0));
  process.exit(result.violations.length > 0 || !result.settled ? 1 : 0);
}

runSoakScript(main);
