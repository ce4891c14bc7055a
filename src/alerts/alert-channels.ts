import { readFile } from 'node:fs/promises';
import axios from 'axios';
import type { AlertSettings } from '../config/daemon-settings';
import { noticeHeadline, noticeText, signBody, type AlertNotice } from './alert-notice';

// One place alerts go. `send` resolves when the receiver accepted the notification and throws
// otherwise; the deliverer retries from the ledger.
export interface AlertChannel {
  // 'webhook', 'slack', 'email', or 'email:<brokerage>' for a brokerage's own recipients.
  readonly name: string;
  send(notice: AlertNotice, deliveryId: number): Promise<void>;
}

const SEND_TIMEOUT_MS = 10_000;

// The channels the environment configures (docs/operations.md, "Alerts"). Secrets given as files
// are read at each delivery, so a rotated one needs no restart.
export function alertChannels(settings: AlertSettings): AlertChannel[] {
  const channels: AlertChannel[] = [];
  if (settings.webhookUrl)
    channels.push(
      new SignedWebhookChannel(
        settings.webhookUrl,
        secret(settings.webhookSecret, settings.webhookSecretFile),
      ),
    );
  if (settings.slackWebhookUrl || settings.slackWebhookUrlFile)
    channels.push(new SlackChannel(secret(settings.slackWebhookUrl, settings.slackWebhookUrlFile)));
  if ((settings.smtpUrl || settings.smtpUrlFile) && settings.emailTo.length > 0)
    channels.push(
      new EmailChannel(secret(settings.smtpUrl, settings.smtpUrlFile), settings.emailFrom, settings.emailTo),
    );
  return channels;
}

// Where each alert goes: the daemon's channels, and for a brokerage with `alerts.emailTo` in its
// file, mail to those addresses too (through the daemon's SMTP server), read from the config at
// each delivery so a reload changes them.
export class AlertRoutes {
  private readonly daemonChannels: AlertChannel[];

  constructor(
    private readonly settings: AlertSettings,
    private readonly recipientsOf: (brokerageId: string) => string[] | undefined,
  ) {
    this.daemonChannels = alertChannels(settings);
  }

  get configured(): boolean {
    return this.daemonChannels.length > 0 || this.smtp !== undefined;
  }

  namesFor(brokerageId: string): string[] {
    const names = this.daemonChannels.map((c) => c.name);
    if (this.smtp && brokerageId && (this.recipientsOf(brokerageId)?.length ?? 0) > 0)
      names.push(`email:${brokerageId}`);
    return names;
  }

  channel(name: string): AlertChannel | undefined {
    const own = /^email:(.+)$/.exec(name);
    if (!own) return this.daemonChannels.find((c) => c.name === name);
    const to = this.recipientsOf(own[1]);
    if (!this.smtp || !to?.length) return undefined;
    return new EmailChannel(this.smtp, this.settings.emailFrom, to, name);
  }

  private get smtp(): SecretSource | undefined {
    const { smtpUrl, smtpUrlFile } = this.settings;
    return smtpUrl || smtpUrlFile ? secret(smtpUrl, smtpUrlFile) : undefined;
  }
}

type SecretSource = () => Promise<string | undefined>;

function secret(value: string | undefined, file: string | undefined): SecretSource {
  return async () => value ?? (file ? (await readFile(file, 'utf8')).trim() : undefined);
}

// A generic JSON webhook: the notice as the body, its HMAC in X-Cash-Offer-Sync-Signature, and the
// delivery id (the same on each retry of one notification) so a receiver can drop repeats.
class SignedWebhookChannel implements AlertChannel {
  readonly name = 'webhook';

  constructor(
    private readonly url: string,
    private readonly secret: SecretSource,
  ) {}

  async send(notice: AlertNotice, deliveryId: number): Promise<void> {
    const body = JSON.stringify({ ...notice, delivery: deliveryId });
    const key = await this.secret();
    await axios.post(this.url, body, {
      timeout: SEND_TIMEOUT_MS,
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'cash-offer-sync-alerts',
        'X-Cash-Offer-Sync-Delivery': String(deliveryId),
        ...(key ? { 'X-Cash-Offer-Sync-Signature': signBody(body, key) } : {}),
      },
      // The body is sent as the exact string signed.
      transformRequest: [(data: unknown) => data],
      maxRedirects: 0,
    });
  }
}

// A Slack incoming webhook (or anything that takes Slack's `{ "text": … }`).
class SlackChannel implements AlertChannel {
  readonly name = 'slack';

  constructor(private readonly url: SecretSource) {}

  async send(notice: AlertNotice): Promise<void> {
    const url = await this.url();
    if (!url) throw new Error('the Slack webhook URL file is empty');
    const marker = notice.state === 'resolved' ? ':white_check_mark:' : ':rotating_light:';
    await axios.post(
      url,
      {
        text: `${marker} *${noticeHeadline(notice)}*\n${notice.summary}\n${notice.state === 'resolved' ? `Resolved ${notice.resolvedAt}` : `Since ${notice.since}. More: \`${notice.more}\``}`,
      },
      { timeout: SEND_TIMEOUT_MS, maxRedirects: 0 },
    );
  }
}

// Mail over SMTP (nodemailer): the headline as the subject, the whole notice as plain text.
class EmailChannel implements AlertChannel {
  constructor(
    private readonly smtpUrl: SecretSource,
    private readonly from: string,
    private readonly to: string[],
    readonly name = 'email',
  ) {}

  async send(notice: AlertNotice, deliveryId: number): Promise<void> {
    const url = await this.smtpUrl();
    if (!url) throw new Error('the SMTP URL file is empty');
    // Loaded on the first mail, not at start: most daemons send none (docs/architecture.md, "Tests").
    const { createTransport } = await import('nodemailer');
    const transport = createTransport(url, {});
    try {
      await transport.sendMail({
        from: this.from,
        to: this.to,
        subject: noticeHeadline(notice),
        text: noticeText(notice),
        headers: { 'X-Cash-Offer-Sync-Delivery': String(deliveryId) },
      });
    } finally {
      transport.close();
    }
  }
}
