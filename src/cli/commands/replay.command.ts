import { Command, CommandRunner, Option } from 'nest-commander';
import { ReplayService } from '../../ops/actions/replay.service';
import { CliOutput } from '../output/cli-output';
import { parseIds, type CommonOptions } from './cli-options';

interface ReplayOptions extends CommonOptions {
  events?: boolean;
  commands?: boolean;
  id?: number[];
  unknown?: boolean;
  confirmAbsent?: boolean;
}

// Puts dead-lettered inbox events, or failed and dead outbox commands, back in line. The running
// daemon's workers pick them up on their next tick. Commands whose outcome is unknown are replayed
// only with --unknown --confirm-absent and by id: the operator has checked the service has no trace
// of them, since sending one the service did receive would do it twice.
@Command({
  name: 'replay',
  description:
    'replay dead-lettered inbox events (--events) or failed/dead outbox commands (--commands; unknown ones with --unknown --confirm-absent --id N)',
})
export class ReplayCommand extends CommandRunner {
  constructor(
    private readonly replay: ReplayService,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(_params: string[], options: ReplayOptions = {}): Promise<void> {
    if (options.events === options.commands) {
      this.output.fail('replay needs exactly one of --events or --commands');
      return;
    }
    if (options.brokerage === undefined && options.id === undefined) {
      this.output.fail('replay needs --brokerage <id> or --id <n> (so nothing is replayed by accident)');
      return;
    }
    if (options.unknown && (options.events || !options.confirmAbsent || options.id === undefined)) {
      this.output.fail(
        'replay --unknown needs --commands, --id <n> and --confirm-absent: an unknown command may have reached ' +
          'the service; replay it only after checking the service has no trace of it (docs/operations.md "Unknown outcomes")',
      );
      return;
    }
    const filter = { brokerageId: options.brokerage, ids: options.id };
    const what = options.events
      ? 'dead-lettered inbox event(s)'
      : options.unknown
        ? 'outbox command(s) of unknown outcome'
        : 'failed or dead outbox command(s)';
    const replayed = options.events
      ? await this.replay.replayEvents(filter)
      : await this.replay.replayCommands(filter, { unknown: options.unknown });
    if (options.json) {
      this.output.json({ kind: options.events ? 'events' : 'commands', ...filter, replayed });
      return;
    }
    const scope = [
      options.brokerage ? `brokerage ${options.brokerage}` : '',
      options.id ? `id ${options.id.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    this.output.print(`replayed ${replayed} ${what} (${scope})`);
  }

  @Option({ flags: '--events', description: 'dead-lettered inbox events' })
  parseEvents(): boolean {
    return true;
  }

  @Option({ flags: '--commands', description: 'failed and dead outbox commands' })
  parseCommands(): boolean {
    return true;
  }

  @Option({
    flags: '--unknown',
    description: 'commands whose outcome is unknown (needs --id and --confirm-absent)',
  })
  parseUnknown(): boolean {
    return true;
  }

  @Option({
    flags: '--confirm-absent',
    description: 'you checked the service has no trace of these unknown commands',
  })
  parseConfirmAbsent(): boolean {
    return true;
  }

  @Option({ flags: '-b, --brokerage <id>', description: 'all of this brokerage' })
  parseBrokerage(value: string): string {
    return value;
  }

  @Option({ flags: '--id <ids>', description: 'these ids (repeat, or comma-separated)' })
  parseId(value: string, previous?: number[]): number[] {
    return parseIds(value, previous);
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}
