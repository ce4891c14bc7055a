import { existsSync } from 'node:fs';
import { takesHubSpotWebhooks } from '../../brokerages/crm-webhook-url';
import type { Clock } from '../../common/clock';
import type { LoadedBrokerage } from '../../config/config.loader';
import { IN_MEMORY_LEDGER, type DaemonSettings } from '../../config/daemon-settings';
import { openLedger } from '../../ledger/ledger';

export const DEFAULT_WEBHOOK_SILENCE_HOURS = 24;

export interface WebhookSilence {
  brokerageId: string;
  warning: string;
  lastReceivedAt: string | null;
}

// validate-config --online: a brokerage that takes HubSpot webhooks but whose ledger has had no
// verified one for `hours` (or ever) is probably not subscribed, or HubSpot posts elsewhere or signs
// with another secret. A warning only: crm-changes keeps polling, so nothing is lost but speed.
// Reads the ledger the daemon keeps (never creates one: no file, no ledger, every brokerage silent).
export async function hubSpotWebhookSilences(
  brokerages: LoadedBrokerage[],
  settings: DaemonSettings,
  clock: Clock,
  hours = DEFAULT_WEBHOOK_SILENCE_HOURS,
): Promise<WebhookSilence[]> {
  const taking = brokerages.filter((b) => b.config.enabled !== false && takesHubSpotWebhooks(b));
  if (taking.length === 0) return [];
  const hasLedger =
    Boolean(settings.ledgerUrl) ||
    (settings.ledgerPath !== IN_MEMORY_LEDGER && existsSync(settings.ledgerPath));
  const ledger = hasLedger
    ? await openLedger({ databasePath: settings.ledgerPath, url: settings.ledgerUrl, clock })
    : undefined;
  try {
    const silences: WebhookSilence[] = [];
    for (const brokerage of taking) {
      const last = (await ledger?.crmWebhookEvents.lastReceivedAt(brokerage.id, 'hubspot')) ?? null;
      if (last && clock.nowMs() - last.getTime() <= hours * 3_600_000) continue;
      silences.push({
        brokerageId: brokerage.id,
        lastReceivedAt: last?.toISOString() ?? null,
        warning: `HubSpot webhooks are configured (crm.clientSecret*) but ${
          last ? `the last verified one arrived ${last.toISOString()}` : 'none has arrived'
        } in the last ${hours} h: check the private app's webhook subscriptions and target URL (setup-crm prints them), and its client secret; crm-changes keeps polling meanwhile`,
      });
    }
    return silences;
  } finally {
    await ledger?.close();
  }
}
