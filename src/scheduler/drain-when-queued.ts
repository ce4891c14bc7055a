import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CoalescedTask } from '../common/coalesced-task';
import { OutboxRepository } from '../ledger';
import { EarlyRunTrigger } from './early-run.trigger';

// The daemon asks for an early outbox drain of a brokerage as soon as a command of it is queued,
// not when the run that queued it ends: a crm-changes run queues an agent's offer request on
// reading its deals, then reads contacts (another search, waiting its turn of the portal's search
// budget with every brokerage on the portal) before it ends; the request need not wait for that.
// The end-of-run request (early-drain.ts) stays for a run whose writes did not go through the
// outbox; the two coalesce into one waiting drain. An unknown command whose look was brought
// forward (OutboxRepository.lookForSoon) is asked for the same way. Asks for one brokerage are
// coalesced here too
// (on pg-boss each ask is a send), so a burst of commands costs at most two.
@Injectable()
export class DrainWhenQueued implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('EarlyRuns');
  private readonly asks = new Map<string, CoalescedTask>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly early: EarlyRunTrigger,
  ) {}

  onApplicationBootstrap(): void {
    this.unsubscribe = this.outbox.onQueued((command) => void this.askFor(command.brokerageId));
  }

  async onModuleDestroy(): Promise<void> {
    this.unsubscribe?.();
    await Promise.all([...this.asks.values()].map((ask) => ask.close()));
  }

  private askFor(brokerageId: string): Promise<void> {
    let ask = this.asks.get(brokerageId);
    if (!ask) {
      ask = new CoalescedTask(
        async () => void (await this.early.request(brokerageId, 'outbox-drain')),
        (error) => this.logger.error(`could not ask for an outbox drain of ${brokerageId}: ${String(error)}`),
      );
      this.asks.set(brokerageId, ask);
    }
    return ask.run();
  }
}
