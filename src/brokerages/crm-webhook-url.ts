import type { LoadedBrokerage } from '../config/config.loader';

// Where a CRM delivers its change notifications for one brokerage, on the webhook listener. It
// carries no secret: the CRM signs each delivery (Follow Up Boss: FUB-Signature).
export function crmWebhookPath(kind: string, brokerageId: string): string {
  return `/webhooks/crm/${kind}/${encodeURIComponent(brokerageId)}`;
}

export function crmWebhookUrl(brokerage: LoadedBrokerage): string {
  const base = brokerage.config.webhooks.publicBaseUrl.replace(/\/+$/, '');
  return `${base}${crmWebhookPath(brokerage.config.crm.kind, brokerage.id)}`;
}

// Change notifications are on unless the file turns them off, for the CRMs whose adapter has them.
export function wantsCrmChangeWebhooks(brokerage: LoadedBrokerage): boolean {
  return brokerage.config.crm.kind === 'followupboss' && brokerage.config.crm.changeWebhooks !== false;
}

// HubSpot cannot be asked for webhooks through its API (a private app's subscriptions live in its
// settings or its project's webhooks.json), so the daemon only takes them: when the brokerage is on
// HubSpot, names the app's client secret that signs them, and has not turned them off.
export function takesHubSpotWebhooks(brokerage: LoadedBrokerage): boolean {
  return (
    brokerage.config.crm.kind === 'hubspot' &&
    brokerage.config.crm.changeWebhooks !== false &&
    Boolean(brokerage.secrets.crmClientSecret)
  );
}
