import { Command, CommandRunner, Option } from 'nest-commander';
import { ConfigService } from '../../config/config.service';
import { InboxRepository, type InboxEvent, type InboxStatus } from '../../ledger';
import { CliOutput } from '../output/cli-output';
import { formatDate } from '../output/format';
import { renderTable } from '../output/table';
import { parseLimit, type CommonOptions } from './cli-options';
import { checkKnownBrokerage } from './known-brokerage';

interface InboxOptions extends CommonOptions {
  dead?: boolean;
  flagged?: boolean;
  limit?: number;
}

function eventJson(event: InboxEvent) {
  return {
    id: event.id,
    brokerageId: event.brokerageId,
    eventType: event.eventType,
    status: event.status,
    attempts: event.attempts,
    reason: event.deadReason ?? event.lastError,
    receivedAt: event.receivedAt.toISOString(),
    processedAt: event.processedAt?.toISOString() ?? null,
  };
}

// Webhook events held back, with the reason: dead (processing gave up, or the body was malformed)
// and flagged (a claim the ledger or the service did not confirm). `replay --events` retries them.
@Command({
  name: 'inbox',
  description: 'dead (--dead) and flagged (--flagged) webhook events with their reasons, newest first',
})
export class InboxCommand extends CommandRunner {
  constructor(
    private readonly inbox: InboxRepository,
    private readonly config: ConfigService,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(_params: string[], options: InboxOptions = {}): Promise<void> {
    const statuses: InboxStatus[] = [];
    if (options.dead || !options.flagged) statuses.push('dead');
    if (options.flagged || !options.dead) statuses.push('flagged');
    const events = (
      await this.inbox.list({ brokerageId: options.brokerage, statuses, limit: options.limit ?? 50 })
    ).map(eventJson);
    if (!checkKnownBrokerage(this.config, this.output, options.brokerage, events.length > 0)) return;
    if (options.json) {
      this.output.json({ events });
      return;
    }
    if (events.length === 0) {
      this.output.print(`no ${statuses.join(' or ')} webhook events`);
      return;
    }
    this.output.print(
      renderTable(
        ['ID', 'BROKERAGE', 'TYPE', 'STATUS', 'RECEIVED', { header: 'REASON', wrap: 70 }],
        events.map((e) => [e.id, e.brokerageId, e.eventType, e.status, formatDate(e.receivedAt), e.reason]),
      ),
    );
    this.output.print(`replay: cli replay --events --id <id> (malformed bodies are kept, never replayed)`);
  }

  @Option({ flags: '--dead', description: 'only dead events' })
  parseDead(): boolean {
    return true;
  }

  @Option({ flags: '--flagged', description: 'only flagged events' })
  parseFlagged(): boolean {
    return true;
  }

  @Option({ flags: '-b, --brokerage <id>', description: 'only this brokerage' })
  parseBrokerage(value: string): string {
    return value;
  }

  @Option({ flags: '-n, --limit <n>', description: 'how many events (default 50)' })
  parseLimit(value: string): number {
    return parseLimit(value);
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}
