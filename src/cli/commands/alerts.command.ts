import { Command, CommandRunner, Option } from 'nest-commander';
import { AlertRepository, type Alert, type ChannelHealth } from '../../ledger';
import { CliOutput } from '../output/cli-output';
import { formatDate } from '../output/format';
import { renderTable } from '../output/table';
import { parseLimit, type CommonOptions } from './cli-options';

export interface AlertJson {
  key: string;
  kind: string;
  brokerageId: string | null;
  state: string;
  summary: string;
  more: string;
  openedAt: string;
  resolvedAt: string | null;
  notifiedAt: string;
  episode: number;
}

export function alertJson(alert: Alert): AlertJson {
  return {
    key: alert.key,
    kind: alert.kind,
    brokerageId: alert.brokerageId === '' ? null : alert.brokerageId,
    state: alert.state,
    summary: alert.summary,
    more: alert.more,
    openedAt: alert.openedAt.toISOString(),
    resolvedAt: alert.resolvedAt?.toISOString() ?? null,
    notifiedAt: alert.notifiedAt.toISOString(),
    episode: alert.episode,
  };
}

// Open alerts first (oldest first), then recently resolved ones, and how each channel delivers.
@Command({ name: 'alerts', description: 'open and recent alerts, and the state of each alert channel' })
export class AlertsCommand extends CommandRunner {
  constructor(
    private readonly alerts: AlertRepository,
    private readonly output: CliOutput,
  ) {
    super();
  }

  async run(
    _params: string[],
    options: CommonOptions & { open?: boolean; limit?: number } = {},
  ): Promise<void> {
    const alerts = await this.alerts.list({
      brokerageId: options.brokerage,
      state: options.open ? 'firing' : undefined,
      limit: options.limit ?? 50,
    });
    const channels = await this.alerts.channelHealth();
    if (options.json) {
      this.output.json({ alerts: alerts.map(alertJson), channels: channels.map(channelJson) });
      return;
    }
    const open = alerts.filter((a) => a.state === 'firing');
    const lines = [open.length === 0 ? 'No open alerts.' : `${open.length} open alert(s):`];
    if (alerts.length > 0)
      lines.push(
        renderTable(
          [
            'STATE',
            'SINCE',
            'RESOLVED',
            'BROKERAGE',
            'KIND',
            { header: 'WHAT', wrap: 70 },
            { header: 'MORE', wrap: 50 },
          ],
          alerts.map((a) => [
            a.state === 'firing' ? 'FIRING' : 'resolved',
            formatDate(a.openedAt.toISOString()),
            a.resolvedAt ? formatDate(a.resolvedAt.toISOString()) : null,
            a.brokerageId || '-',
            a.kind,
            a.summary,
            a.state === 'firing' ? a.more : null,
          ]),
        ),
      );
    lines.push(
      '',
      channels.length === 0
        ? 'Alert channels: nothing sent yet (configure ALERT_WEBHOOK_URL, ALERT_SLACK_WEBHOOK_URL or ALERT_SMTP_URL; docs/operations.md, "Alerts")'
        : `Alert channels:\n${channels.map(describeChannel).join('\n')}`,
    );
    this.output.print(lines.join('\n'));
  }

  @Option({ flags: '-b, --brokerage <id>', description: 'only this brokerage' })
  parseBrokerage(value: string): string {
    return value;
  }

  @Option({ flags: '--open', description: 'only alerts firing now' })
  parseOpen(): boolean {
    return true;
  }

  @Option({ flags: '-n, --limit <n>', description: 'how many alerts (default 50)' })
  parseLimit(value: string): number {
    return parseLimit(value);
  }

  @Option({ flags: '--json', description: 'machine-readable output' })
  parseJson(): boolean {
    return true;
  }
}

function channelJson(c: ChannelHealth) {
  return { ...c, lastDeliveredAt: c.lastDeliveredAt?.toISOString() ?? null };
}

export function describeChannel(c: ChannelHealth): string {
  const state = c.lastError ? `FAILING (${c.lastError})` : 'ok';
  return `  ${c.channel}: ${state}; ${c.delivered} delivered, ${c.pending} waiting, ${c.failed} given up${c.lastDeliveredAt ? `; last delivered ${c.lastDeliveredAt.toISOString()}` : ''}`;
}
