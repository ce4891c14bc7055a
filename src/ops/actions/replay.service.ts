import { Injectable, Logger } from '@nestjs/common';
import { InboxRepository, OutboxRepository } from '../../ledger';

export interface ReplayFilter {
  brokerageId?: string;
  ids?: number[];
}

// Puts dead and flagged inbox events, or failed and dead outbox commands, back in line: what the
// CLI's `replay` and the status page's replay buttons call. The daemon's drains pick them up on their
// next tick. Commands of unknown outcome only with `unknown: true`, by id, after the operator checked.
@Injectable()
export class ReplayService {
  private readonly logger = new Logger('Replay');

  constructor(
    private readonly inbox: InboxRepository,
    private readonly outbox: OutboxRepository,
  ) {}

  async replayEvents(filter: ReplayFilter): Promise<number> {
    const replayed = await this.inbox.replayDead(filter);
    this.logger.log(`replayed ${replayed} dead or flagged inbox event(s)${scope(filter)}`);
    return replayed;
  }

  async replayCommands(filter: ReplayFilter, options: { unknown?: boolean } = {}): Promise<number> {
    const states: ('failed' | 'dead' | 'unknown')[] = options.unknown ? ['unknown'] : ['failed', 'dead'];
    const replayed = await this.outbox.replay({ ...filter, states });
    this.logger.log(`replayed ${replayed} ${states.join(' or ')} outbox command(s)${scope(filter)}`);
    return replayed;
  }
}

function scope(filter: ReplayFilter): string {
  const parts = [
    filter.brokerageId ? `brokerage ${filter.brokerageId}` : '',
    filter.ids ? `id ${filter.ids.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}
