import { Injectable } from '@nestjs/common';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export type ProbeResult = { reachable: true; status: number } | { reachable: false; reason: string };

const PROBE_TIMEOUT_MS = 5_000;

// Whether anything answers at a brokerage's public webhook address, asked before that address is
// registered with the service (which would otherwise deliver into the void). A GET on `/webhooks`
// reaches the daemon's webhook listener, which answers 404 there: any 2xx-4xx answer means the
// address is served; a refused connection, a timeout or a proxy's 5xx means it is not.
// node:http rather than fetch, which refuses some ports (6000, 10080 ...) a deployment may use.
@Injectable()
export class WebhookUrlProbe {
  check(publicBaseUrl: string): Promise<ProbeResult> {
    const url = new URL(`${publicBaseUrl.replace(/\/+$/, '')}/webhooks`);
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      const req = request(url, { method: 'GET', timeout: PROBE_TIMEOUT_MS }, (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        resolve(
          status >= 500 || status < 200
            ? { reachable: false, reason: `${url.href} answered ${status}` }
            : { reachable: true, status },
        );
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)));
      req.on('error', (error: NodeJS.ErrnoException) =>
        resolve({ reachable: false, reason: `${url.href} did not answer (${error.code ?? error.message})` }),
      );
      req.end();
    });
  }
}
