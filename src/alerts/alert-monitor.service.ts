import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { hostname } from 'node:os';
import { CoalescedTask } from '../common/coalesced-task';
import { DAEMON_SETTINGS, type DaemonSettings } from '../config/daemon-settings';
import { AlertRepository, type Alert, type NoticeBuilder } from '../ledger';
import { MetricsService } from '../observability/metrics/metrics.service';
import { AlertRoutes } from './alert-channels';
import { AlertDeliverer } from './alert-deliverer.service';
import { alertNotice } from './alert-notice';
import { alertActions } from './alert-problems';
import { CredentialWatch } from './credential-watch.service';
import { ProblemFinder } from './problem-finder.service';

// Every ALERT_CHECK_SECONDS: what needs a person now (ProblemFinder), what that does to the alerts
// (alertActions), applied to the ledger with conditional updates, so a restart or a second worker
// never notifies one change twice; then the deliverer sends what was written.
@Injectable()
export class AlertMonitor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Alerts');
  private timer?: NodeJS.Timeout;
  private readonly looks = new CoalescedTask(
    () => this.look(),
    (error) => this.logger.warn(`alert check failed: ${(error as Error).message}`),
  );
  private readonly daemon = `${hostname()} pid ${process.pid}`;

  constructor(
    private readonly finder: ProblemFinder,
    private readonly alerts: AlertRepository,
    private readonly deliverer: AlertDeliverer,
    private readonly credentials: CredentialWatch,
    private readonly metrics: MetricsService,
    private readonly routes: AlertRoutes,
    @Inject(DAEMON_SETTINGS) private readonly settings: Pick<DaemonSettings, 'alerts'>,
  ) {}

  onApplicationBootstrap(): void {
    this.metrics.setOpenAlertsReader(async () => await this.alerts.list({ state: 'firing', limit: 10_000 }));
    this.credentials.onChanged(() => void this.check());
    if (!this.routes.configured)
      this.logger.log(
        'no alert channel is configured (ALERT_WEBHOOK_URL, ALERT_SLACK_WEBHOOK_URL, ALERT_SMTP_URL): alerts are kept in the ledger and shown by cli alerts and the status page',
      );
    this.timer = setInterval(() => void this.check(), this.settings.alerts.checkMs);
    this.timer.unref();
    void this.check();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.metrics.setOpenAlertsReader(undefined);
    await this.looks.close();
  }

  // One look now (coalesced with one under way); resolves when it and its deliveries are done.
  check(): Promise<void> {
    return this.looks.run();
  }

  private async look(): Promise<void> {
    // The alerts are read before the world is looked at, so none is newer than the look: an alert
    // another worker opens while this one looks is not taken for a problem this look found gone.
    const alerts = await this.alerts.list({ limit: 100_000 });
    const observed = await this.finder.observe();
    const actions = alertActions(alerts, observed, new Date(), this.settings.alerts.renotifyMs);
    const notice: NoticeBuilder = (alert: Alert, transition) => ({
      ...alertNotice(alert, transition, this.daemon),
    });
    let notify = false;
    for (const a of actions) {
      if (a.action === 'open' || a.action === 'restate') {
        const names = this.routes.namesFor(a.problem.brokerageId);
        const { changed, alert } = await this.alerts.open(a.problem, names, notice);
        if (changed) this.logger.warn(`alert firing: ${alert.summary}`);
        notify ||= changed;
      } else if (a.action === 'renotify') {
        const names = this.routes.namesFor(a.problem.brokerageId);
        const change = await this.alerts.renotify(a.problem.key, a.episode, a.seen, names, notice);
        notify ||= change?.changed ?? false;
      } else {
        const brokerageId = alerts.find((row) => row.key === a.key)?.brokerageId ?? '';
        const change = await this.alerts.resolve(a.key, a.episode, this.routes.namesFor(brokerageId), notice);
        if (change?.changed) this.logger.log(`alert resolved: ${change.alert.summary}`);
        notify ||= change?.changed ?? false;
      }
    }
    this.logger.debug(
      `alert check done: ${observed.problems.length} problem(s), ${actions.length} change(s)`,
    );
    // Every look also sends what is due again (retries), not only what this one wrote.
    if (notify || this.routes.configured) await this.deliverer.kick();
  }
}
