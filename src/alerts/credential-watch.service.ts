import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { BrokerageCrms } from '../brokerages/brokerage-crms';
import { CashOfferClients } from '../brokerages/cash-offer-clients';
import { Clock } from '../common/clock';
import { CredentialSuspicions } from '../common/credential-suspicions';
import { ConfigService } from '../config/config.service';
import { DAEMON_SETTINGS, type DaemonSettings } from '../config/daemon-settings';
import { CREDENTIAL_REMOTES, type CredentialRemote } from '../ledger';
import { JobPauseService } from '../scheduler/job-pause.service';
import { probeVerdict, REMOTE_NAMES, type ProbeVerdict } from './credential-probe';

// Credentials that stopped working pause their brokerage instead of failing every few seconds: a
// suspicion (a 401, a failed run) makes the watch check the brokerage's credentials with one cheap
// call per remote; a refusal pauses all its jobs with the reason (every job reads or writes both
// remotes), and the pause is lifted when a check passes again: after each config reload and every
// ALERT_CREDENTIAL_RECHECK_MINUTES. The pause is a ledger row, so every worker honours it and the
// alert monitor raises the alert from it.
@Injectable()
export class CredentialWatch implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Credentials');
  // Per brokerage: when it was last checked, and the check under way (so suspicions coalesce).
  private readonly lastChecked = new Map<string, number>();
  private readonly checking = new Map<string, Promise<void>>();
  private readonly stops: (() => void)[] = [];
  private timer?: NodeJS.Timeout;
  private closed = false;
  // Called after a check changed a pause, so the alert follows at once rather than at the next tick.
  private changedListener: () => void = () => undefined;

  constructor(
    private readonly config: ConfigService,
    private readonly pauses: JobPauseService,
    private readonly clients: CashOfferClients,
    private readonly crms: BrokerageCrms,
    private readonly suspicions: CredentialSuspicions,
    private readonly clock: Clock,
    @Inject(DAEMON_SETTINGS) private readonly settings: Pick<DaemonSettings, 'alerts'>,
  ) {}

  onChanged(listener: () => void): void {
    this.changedListener = listener;
  }

  onApplicationBootstrap(): void {
    // A suspicion is checked at most every half minute per brokerage: a failing job is not a storm of calls.
    this.stops.push(this.suspicions.listen((id) => void this.check(id, 30_000)));
    this.stops.push(
      this.config.onChange(async (diff) => {
        const ids = new Set([...diff.added, ...diff.changed].map((b) => b.id));
        for (const id of await this.pausedBrokerages()) ids.add(id);
        await Promise.all([...ids].map((id) => this.checkAfterReload(id)));
      }),
    );
    this.timer = setInterval(() => void this.recheckPaused(), this.settings.alerts.credentialRecheckMs);
    this.timer.unref();
    void this.recheckPaused();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    for (const stop of this.stops) stop();
    await Promise.allSettled([...this.checking.values()]);
  }

  // Checks the brokerage's credentials unless that was done less than `minIntervalMs` ago; resolves
  // when the check (this one or the one already under way) is done.
  check(brokerageId: string, minIntervalMs: number): Promise<void> {
    const running = this.checking.get(brokerageId);
    if (running) return running;
    const last = this.lastChecked.get(brokerageId);
    if (this.closed || (last !== undefined && this.clock.nowMs() - last < minIntervalMs))
      return Promise.resolve();
    const brokerage = this.config.get(brokerageId);
    if (!brokerage || brokerage.config.enabled === false) return Promise.resolve();
    this.lastChecked.set(brokerageId, this.clock.nowMs());
    const work = this.checkEach(brokerageId)
      .catch((error: unknown) =>
        this.logger.warn(`could not check the credentials of ${brokerageId}: ${(error as Error).message}`),
      )
      .finally(() => this.checking.delete(brokerageId));
    this.checking.set(brokerageId, work);
    return work;
  }

  // A reload's check is never answered by one begun before it: that one probes with the credentials
  // the operator just replaced (a job's 401 made it), and its refusal would keep the brokerage
  // paused until the next periodic recheck. It runs once the earlier one is done.
  private async checkAfterReload(brokerageId: string): Promise<void> {
    await this.checking.get(brokerageId);
    await this.check(brokerageId, 0);
  }

  private async recheckPaused(): Promise<void> {
    const paused = await this.pausedBrokerages().catch(() => []);
    await Promise.all(paused.map((id) => this.check(id, 0)));
  }

  private async pausedBrokerages(): Promise<string[]> {
    return [...new Set((await this.pauses.list()).filter((p) => p.credential).map((p) => p.brokerageId))];
  }

  private async checkEach(brokerageId: string): Promise<void> {
    let changed = false;
    const checkedWith = this.config.get(brokerageId)?.fingerprint;
    for (const remote of CREDENTIAL_REMOTES) {
      const verdict = await this.probe(brokerageId, remote);
      if (this.config.get(brokerageId)?.fingerprint !== checkedWith) {
        // Reloaded while the probe was out: its verdict is on credentials no longer configured (a
        // refusal of the old key, after another worker saw the new one work, would pause and alert
        // again). The reload's own check decides.
        this.logger.debug(`credentials of ${brokerageId}: the config changed during the check; not applied`);
        break;
      }
      if (verdict.verdict === 'refused' && this.replacedOnDisk(brokerageId, remote)) {
        // The operator has put other credentials in the brokerage's files and not reloaded yet (or
        // this worker has not: another may already be working with them). A refusal of the old
        // ones is no news; pausing would stop the workers that have the new ones, and alert again.
        this.logger.warn(
          `${REMOTE_NAMES[remote]} refused the credentials ${brokerageId} was loaded with, but its files now give others: not paused; reload the config (SIGHUP) to use them`,
        );
        continue;
      }
      if (verdict.verdict === 'refused') {
        const at = this.clock.now().toISOString().slice(0, 16).replace('T', ' ');
        const reason =
          `${REMOTE_NAMES[remote]} refused this brokerage's credentials at ${at} UTC (${verdict.why.slice(0, 200)}); ` +
          `fix ${remote === 'crm' ? 'crm.token' : 'cashOffer.apiKey'} (its env or file) and reload the config: ` +
          'the daemon checks again after each reload and every ' +
          `${Math.round(this.settings.alerts.credentialRecheckMs / 60_000)} min, and resumes by itself`;
        changed = (await this.pauses.pauseForCredential(brokerageId, remote, reason)) || changed;
      } else if (verdict.verdict === 'accepted') {
        changed = (await this.pauses.clearCredential(brokerageId, remote)) || changed;
      } else {
        this.logger.debug(`credentials of ${brokerageId} for ${remote} not checked: ${verdict.why}`);
      }
    }
    if (changed) this.changedListener();
  }

  private replacedOnDisk(brokerageId: string, remote: CredentialRemote): boolean {
    const loaded = this.config.get(brokerageId)?.secrets;
    const onDisk = this.config.secretsOnDisk(brokerageId);
    if (!loaded || !onDisk) return false;
    return remote === 'cash-offer'
      ? onDisk.cashOfferApiKey !== loaded.cashOfferApiKey
      : onDisk.crmToken !== loaded.crmToken || onDisk.crmSystemKey !== loaded.crmSystemKey;
  }

  // One cheap authenticated read per remote: a page of one active request; the CRM's deal pipelines.
  private async probe(brokerageId: string, remote: CredentialRemote): Promise<ProbeVerdict> {
    try {
      if (remote === 'cash-offer') await this.clients.get(brokerageId).listActiveOfferRequests({ limit: 1 });
      else await (await this.crms.get(brokerageId)).port.listPipelines('deal');
      return probeVerdict(remote, { ok: true });
    } catch (error) {
      return probeVerdict(remote, { error });
    }
  }
}
