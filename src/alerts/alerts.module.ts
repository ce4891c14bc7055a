import { Module } from '@nestjs/common';
import { BrokeragesModule } from '../brokerages/brokerages.module';
import { DAEMON_SETTINGS, type DaemonSettings } from '../config/daemon-settings';
import { SecretRedactor } from '../observability/logging/secret-redactor';
import { ConfigService } from '../config/config.service';
import { AlertRoutes } from './alert-channels';
import { AlertDeliverer } from './alert-deliverer.service';
import { AlertMonitor } from './alert-monitor.service';
import { CredentialWatch } from './credential-watch.service';
import { ProblemFinder } from './problem-finder.service';

// Alerts (docs/operations.md, "Alerts"): the daemon's own; the CLI reads them from the ledger.
@Module({
  imports: [BrokeragesModule],
  providers: [
    {
      provide: AlertRoutes,
      inject: [DAEMON_SETTINGS, SecretRedactor, ConfigService],
      useFactory: (settings: DaemonSettings, redactor: SecretRedactor, config: ConfigService) => {
        const a = settings.alerts;
        // The webhook secret, the Slack URL and the SMTP URL never reach a log line.
        redactor.register(a.webhookSecret, a.slackWebhookUrl, a.smtpUrl);
        return new AlertRoutes(a, (id) => config.get(id)?.config.alerts?.emailTo);
      },
    },
    AlertDeliverer,
    CredentialWatch,
    ProblemFinder,
    AlertMonitor,
  ],
})
export class AlertsModule {}
