import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '../../config/config.service';
import { InboxRepository, OutboxRepository } from '../../ledger';
import { UnknownTargetError } from '../../scheduler/job-pause.service';

export interface ReplayFilter {
  brokerageId?: string;
  ids?: number[];
}

// Puts dead and flagged inbox events, or failed and dead outbox commands, back in line: what the
// CLI's `replay` and the status page's replay buttons call. The daemon's drains pick them up on their
// next tick. Commands of unknown outcome only with `unknown: true`, by id, after the operator checked.
// A brokerage no file names is a typo (or one whose rows no drain takes any more): refused, never
// "replayed 0".
@Injectable()
export class ReplayService {
  private readonly logger = new Logger('Replay');

  constructor(
    private readonly inbox: InboxRepository,
    private readonly outbox: OutboxRepository,
    private readonly config: ConfigService,
  ) {}

  async replayEvents(filter: ReplayFilter): Promise<number> {
    this.checkBrokerage(filter);
    const replayed = await this.inbox.replayDead(filter);
    this.logger.log(`replayed ${replayed} dead or flagged inbox event(s)${scope(filter)}`);
    return replayed;
  }

  async replayCommands(filter: ReplayFilter, options: { unknown?: boolean } = {}): Promise<number> {
    this.checkBrokerage(filter);
    const states: ('failed' | 'dead' | 'unknown')[] = options.unknown ? ['unknown'] : ['failed', 'dead'];
    const replayed = await this.outbox.replay({ ...filter, states });
    this.logger.log(`replayed ${replayed} ${states.join(' or ')} outbox command(s)${scope(filter)}`);
    return replayed;
  }

  private checkBrokerage({ brokerageId }: ReplayFilter): void {
    if (brokerageId !== undefined && !this.config.isKnown(brokerageId))
      throw new UnknownTargetError(this.config.whyNotLoaded(brokerageId));
  }
}

function scope(filter: ReplayFilter): string {
  const parts = [
    filter.brokerageId ? `brokerage ${filter.brokerageId}` : '',
    filter.ids ? `id ${filter.ids.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}
