import type { CrmChangeSubscriptionReport } from '../crm.port';
import { CrmError } from '../crm.error';
import { MAX_PAGE } from './followupboss.constants';
import type { FollowUpBossHttpClient } from './followupboss-http.client';
import { FUB_CHANGE_EVENTS } from './followupboss-webhook';

interface FubWebhook {
  id: number;
  event: string;
  url: string;
  status?: string;
}

// Registers the daemon's URL for each change event, idempotently: a webhook already pointing there
// is kept; one of ours pointing at an older address (same path, another host) is moved with PUT;
// otherwise POST. FUB keeps webhooks per system and allows two per event (crm-apis.md B6).
export class FollowUpBossWebhookSubscriber {
  constructor(
    private readonly http: FollowUpBossHttpClient,
    private readonly hasSystemKey: boolean,
  ) {}

  async subscribe(url: string): Promise<CrmChangeSubscriptionReport> {
    if (!this.hasSystemKey)
      throw new CrmError(
        'AUTH_FAILED',
        'Follow Up Boss webhooks need the registered system key (crm.systemKeyEnv or crm.systemKeyFile): FUB signs deliveries with it',
      );
    const existing = await this.list();
    const path = new URL(url).pathname;
    const items: CrmChangeSubscriptionReport['items'] = [];
    for (const event of FUB_CHANGE_EVENTS) {
      const item = `webhook ${event}`;
      const mine = existing.filter((w) => w.event === event);
      const same = mine.find((w) => w.url === url);
      if (same && same.status !== 'Disabled') {
        items.push({ item, outcome: 'already present' });
        continue;
      }
      const moved = same ?? mine.find((w) => pathOf(w.url) === path);
      if (moved) {
        await this.http.call({
          method: 'PUT',
          path: `/webhooks/${moved.id}`,
          body: { url, status: 'Active' },
          what: `update webhook ${moved.id} (${event})`,
          idempotent: true,
        });
        items.push({ item, outcome: 'updated' });
        continue;
      }
      await this.http.call({
        method: 'POST',
        path: '/webhooks',
        body: { event, url },
        what: `register webhook ${event}`,
        idempotent: false,
      });
      items.push({ item, outcome: 'created' });
    }
    return { supported: true, items };
  }

  private async list(): Promise<FubWebhook[]> {
    const all: FubWebhook[] = [];
    for (let offset = 0; ; offset += MAX_PAGE) {
      const page = await this.http.call<{ _metadata?: { total?: number }; webhooks?: FubWebhook[] }>({
        method: 'GET',
        path: '/webhooks',
        query: { limit: MAX_PAGE, offset },
        what: 'list webhooks',
        idempotent: true,
      });
      const webhooks = page.webhooks ?? [];
      all.push(...webhooks);
      if (webhooks.length < MAX_PAGE || all.length >= (page._metadata?.total ?? 0)) return all;
    }
  }
}

function pathOf(url: string): string | undefined {
  try {
    return new URL(url).pathname;
  } catch {
    return undefined;
  }
}
