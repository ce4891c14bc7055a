import { BeforeApplicationShutdown, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { WebhookRegistrationService } from './webhook-registration.service';

// The daemon registers every brokerage's URL at start; failures retry in the background and never
// hold up the start or the other brokerages.
const SHUTDOWN_GRACE_MS = 1_000;

@Injectable()
export class WebhookRegistrationOnStart implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private inFlight: Promise<unknown> | undefined;

  constructor(private readonly registration: WebhookRegistrationService) {}

  onApplicationBootstrap(): void {
    this.inFlight = this.registration.registerAll({ retryInBackground: true });
  }

  // A shutdown right after start gives the first round a moment to finish; a round still waiting on
  // the service after that is abandoned (the service stops before touching the ledger again).
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.inFlight) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)));
    await Promise.race([this.inFlight.catch(() => undefined), grace]);
    clearTimeout(timer);
  }
}
