// Boots LedgerModule in a real Nest application context and prints what it resolved. Run from dist/
// by the module's medium test: jest cannot load NestJS 12, which is ESM-only, but Node 20 can.
//   node dist/test/support/ledger-module-child.js <database path>
import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Clock, ManualClock } from '../../src/common/clock';
import {
  CursorRepository,
  InboxRepository,
  Ledger,
  LedgerModule,
  LedgerRetention,
  LedgerTransactions,
  LinkRepository,
  OutboxRepository,
  RecordErrorRepository,
  RunRepository,
} from '../../src/ledger';

const clock = new ManualClock(new Date('2026-05-01T00:00:00.000Z'));

// Like the app's CoreModule: a global Clock, which the ledger picks up.
@Global()
@Module({ providers: [{ provide: Clock, useValue: clock }], exports: [Clock] })
class ClockModule {}

async function main(): Promise<void> {
  const [databasePath] = process.argv.slice(2);
  const app = await NestFactory.createApplicationContext(
    { module: class AppModule {}, imports: [ClockModule, LedgerModule.forRoot({ databasePath })] },
    { logger: false },
  );
  app.enableShutdownHooks();
  const ledger = app.get(Ledger);
  const tokens = [
    LedgerTransactions,
    LinkRepository,
    CursorRepository,
    InboxRepository,
    OutboxRepository,
    RunRepository,
    RecordErrorRepository,
    LedgerRetention,
  ];
  const sameAsLedger = tokens.map((token) => Object.values(ledger).includes(app.get(token)));
  const { command } = await app.get(OutboxRepository).enqueue({
    brokerageId: 'b1',
    idempotencyKey: 'k1',
    operation: 'create_offer_request',
    recordRef: 'deal:1',
    payload: {},
  });
  await app.close();
  process.stdout.write(
    `${JSON.stringify({
      sameAsLedger,
      createdAt: command.createdAt.toISOString(),
      closed: !ledger.dataSource.isInitialized,
    })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
