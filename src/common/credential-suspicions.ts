import { Injectable } from '@nestjs/common';

export type SuspicionListener = (brokerageId: string) => void;

// Signs that a brokerage's credentials may have stopped working (a 401 from the service, a run that
// failed): whoever sees one reports it here, and the credential watch (src/alerts) checks the
// credentials with a call of its own. In-process and fire-and-forget: nothing here waits for it.
@Injectable()
export class CredentialSuspicions {
  private readonly listeners: SuspicionListener[] = [];

  report(brokerageId: string): void {
    for (const listener of this.listeners) listener(brokerageId);
  }

  listen(listener: SuspicionListener): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }
}
