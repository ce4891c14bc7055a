import { Injectable, Logger } from '@nestjs/common';
import { LedgerStateError, OutboxRepository } from '../../ledger';
import { OutboxExecutors } from './outbox.executors';

export type ReceivedConfirmation =
  | { id: number; confirmed: true; operation: string; recordRef: string; brokerageId: string }
  | { id: number; confirmed: false; reason: string };

// The operator's answer to a command of unknown outcome that nothing the service lists can show
// (a counter on a service that lists countered offers `active`): having checked the service, they
// say it holds the write, and the next drain finishes the command as answered with no body
// (OutboxDrainService). The counterpart of `replay --unknown --confirm-absent`, which sends it again.
@Injectable()
export class ReceivedConfirmations {
  private readonly logger = new Logger('ConfirmReceived');

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly executors: OutboxExecutors,
  ) {}

  async confirm(ids: readonly number[], brokerageId?: string): Promise<ReceivedConfirmation[]> {
    const outcomes: ReceivedConfirmation[] = [];
    for (const id of ids) outcomes.push(await this.confirmOne(id, brokerageId));
    return outcomes;
  }

  private async confirmOne(id: number, brokerageId: string | undefined): Promise<ReceivedConfirmation> {
    const command = await this.outbox.get(id);
    if (!command) return { id, confirmed: false, reason: `there is no outbox command ${id}` };
    if (brokerageId !== undefined && command.brokerageId !== brokerageId)
      return {
        id,
        confirmed: false,
        reason: `command ${id} belongs to brokerage ${command.brokerageId}, not ${brokerageId}`,
      };
    const refused = this.refusal(id, command.operation, command.state);
    if (refused) return { id, confirmed: false, reason: refused };
    try {
      await this.outbox.confirmReceived(id);
    } catch (error) {
      if (!(error instanceof LedgerStateError)) throw error;
      const now = await this.outbox.get(id);
      return {
        id,
        confirmed: false,
        reason: this.refusal(id, command.operation, now?.state) ?? error.message,
      };
    }
    this.logger.log(
      `outbox command ${id} (${command.operation} for ${command.recordRef}): confirmed received by the operator`,
    );
    return {
      id,
      confirmed: true,
      operation: command.operation,
      recordRef: command.recordRef,
      brokerageId: command.brokerageId,
    };
  }

  // Why this command cannot be confirmed received, if it cannot.
  private refusal(id: number, operation: string, state: string | undefined): string | undefined {
    if (state === 'done') return `command ${id} is done already (its outcome is known); nothing to confirm`;
    if (state !== 'unknown')
      return `command ${id} is ${state ?? 'gone'}, not of unknown outcome; only a command sent with no known outcome can be confirmed received`;
    if (!this.executors.get(operation)?.receivedWithoutAnswer)
      return `command ${id} (${operation}) cannot be finished without the answer only the remote gives; the daemon keeps looking for it (replay --commands --unknown --confirm-absent --id ${id} sends it again, once you have checked it never arrived)`;
    return undefined;
  }
}
