import { Logger } from '@nestjs/common';
import type { OutboxRepository } from '../../ledger';
import type { DiscoveryService } from '@nestjs/core';
import { OutboxOperationsCheck } from './outbox-operations.check';
import { OutboxExecutors, type CommandExecutor } from './outbox.executors';

const executor: CommandExecutor = {
  send: () => Promise.resolve(null),
  reconcile: () => Promise.resolve({ found: false, provablyAbsent: true, hint: '' }),
};

function check(live: Awaited<ReturnType<OutboxRepository['liveOperations']>>): OutboxOperationsCheck {
  const executors = new OutboxExecutors({ getProviders: () => [] } as unknown as DiscoveryService);
  executors.register('create_offer_request', executor);
  executors.register('write_back', executor);
  const outbox = { liveOperations: () => Promise.resolve(live) } as unknown as OutboxRepository;
  return new OutboxOperationsCheck(outbox, executors);
}

describe('OutboxOperationsCheck', () => {
  beforeAll(() => {
    Logger.overrideLogger(false);
  });

  it('lets the daemon start when every live operation has an executor', async () => {
    await expect(
      check([{ operation: 'create_offer_request', count: 3, brokerages: ['acme'] }]).onModuleInit(),
    ).resolves.toBeUndefined();
  });

  it('refuses to start, naming the operation, its count and brokerages, and what is known', async () => {
    const refusal = check([
      { operation: 'write_back', count: 1, brokerages: ['acme'] },
      { operation: 'archive_offer', count: 4, brokerages: ['acme', 'bravo'] },
    ]).onModuleInit();
    await expect(refusal).rejects.toThrow(
      'the ledger holds outbox commands no executor of this build knows: "archive_offer" (4 command(s) of acme, bravo). Known operations: create_offer_request, write_back.',
    );
  });
});
