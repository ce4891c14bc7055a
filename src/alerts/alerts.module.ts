import { Module } from '@nestjs/common';
import { BrokeragesModule } from '../brokerages/brokerages.module';
import { DAEMON_SETTINGS, type DaemonSettings } from '../config/daemon-settings';
import { SecretRedactor } from '../ops/logging/secret-redactor';
import { alertChannels } from './alert-channels';
import { ALERT_CHANNELS, AlertDeliverer } from './alert-deliverer.service';
import { AlertMonitor } from './alert-monitor.service';
import { CredentialWatch } from './credential-watch.service';
import { ProblemFinder } from './problem-finder.service';

// Alerts (docs/operations.md, "Alerts"): the daemon's own; the CLI reads them from the ledger.
@Module({
  imports: [BrokeragesModule],
  providers: [
    {
      provide: ALERT_CHANNELS,
      inject: [DAEMON_SETTINGS, SecretRedactor],
      useFactory: (settings: DaemonSettings, redactor: SecretRedactor) => {
        const a = settings.alerts;
        // The webhook secret, the Slack URL and the SMTP URL never reach a log line.
        redactor.register(a.webhookSecret, a.slackWebhookUrl, a.smtpUrl);
        return alertChannels(a);
      },
    },
    AlertDeliverer,
    CredentialWatch,
    ProblemFinder,
    AlertMonitor,
  ],
})
export class AlertsModule {}
