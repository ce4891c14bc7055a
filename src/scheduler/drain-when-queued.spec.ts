// Nest's decorators and Logger as inert stand-ins (nest-stand-ins.testing.ts).
jest.mock('@nestjs/common', () =>
  jest
    .requireActual<typeof import('./nest-stand-ins.testing')>('./nest-stand-ins.testing')
    .nestCommonStandIn(jest.requireActual('@nestjs/common')),
);

import type { OutboxCommand, OutboxRepository } from '../ledger';
import { DrainWhenQueued } from './drain-when-queued';

// An outbox that only announces, and a trigger whose asks end when the test says so.
function setup() {
  const listeners = new Set<(command: OutboxCommand) => void>();
  const outbox = {
    onQueued: (listener: (command: OutboxCommand) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const asked: string[] = [];
  const answers: (() => void)[] = [];
  const early = {
    request: (brokerageId: string, job: string) => {
      asked.push(`${brokerageId} ${job}`);
      return new Promise<'queued'>((resolve) => answers.push(() => resolve('queued')));
    },
  };
  const drains = new DrainWhenQueued(outbox as unknown as OutboxRepository, early);
  const queue = (brokerageId: string) =>
    listeners.forEach((listener) => listener({ brokerageId } as OutboxCommand));
  const answerAll = async () => {
    while (answers.length > 0) {
      answers.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { drains, queue, asked, answerAll, listeners };
}

describe('DrainWhenQueued', () => {
  it('asks for an early outbox drain of the brokerage as soon as one of its commands is queued', () => {
    const { drains, queue, asked } = setup();
    drains.onApplicationBootstrap();
    queue('acme');
    expect(asked).toEqual(['acme outbox-drain']);
  });

  it('coalesces a burst of commands of one brokerage into at most two asks, each brokerage its own', async () => {
    const { drains, queue, asked, answerAll } = setup();
    drains.onApplicationBootstrap();
    for (let i = 0; i < 10; i++) queue('acme');
    queue('beta');
    await answerAll();
    expect(asked).toEqual(['acme outbox-drain', 'beta outbox-drain', 'acme outbox-drain']);
  });

  it('stops listening when the daemon stops', async () => {
    const { drains, queue, asked, listeners } = setup();
    drains.onApplicationBootstrap();
    await drains.onModuleDestroy();
    queue('acme');
    expect(asked).toEqual([]);
    expect(listeners.size).toBe(0);
  });
});
