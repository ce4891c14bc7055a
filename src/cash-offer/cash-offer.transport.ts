import { Pool } from 'undici';

export interface TransportRequest {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

export interface TransportResponse {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

// Thrown when no HTTP answer arrived; carries only a code, never the request or its headers.
export class TransportFailure extends Error {
  constructor(readonly networkCode: string) {
    super(`transport failure ${networkCode}`);
    this.name = 'TransportFailure';
  }
}

const MAX_CONNECTIONS = 16;

// One keep-alive connection pool to the service for one brokerage, on undici (Node's own HTTP
// client) rather than axios: axios costs ~0.1 ms of CPU per call, more than the 10 % budget the
// client has over a bare loop (docs/cash-offer-client.md, "Transport: undici, not axios"). The API
// key is added per request and is not stored on the pool, so nothing printable from here holds
// it. undici follows no redirects (they could carry the key to another host) and reads no proxy
// from the environment; every status comes back as an answer for the client to classify.
export class CashOfferTransport {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #apiKey: string;
  readonly #timeoutMs: number;

  constructor(baseUrl: string, apiKey: string, timeoutMs: number) {
    const url = new URL(baseUrl);
    this.#apiKey = apiKey;
    this.#timeoutMs = timeoutMs;
    this.#basePath = url.pathname.replace(/\/+$/, '');
    // Each attempt has one wall-clock deadline (the signal in send); the pool's own timeouts
    // bound connecting and back it up (they tick at about one-second resolution).
    this.#pool = new Pool(url.origin, {
      connections: MAX_CONNECTIONS,
      connect: { timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    try {
      const hasBody = request.body !== undefined;
      const response = await this.#pool.request({
        method: request.method,
        path: this.#basePath + request.path + queryString(request.query),
        headers: {
          authorization: this.#apiKey,
          accept: 'application/json',
          ...(hasBody ? { 'content-type': 'application/json' } : {}),
        },
        body: hasBody ? JSON.stringify(request.body) : undefined,
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      // The body is read whatever the status, so the connection goes back to the pool.
      const body = await response.body.text();
      return { status: response.statusCode, headers: response.headers, body };
    } catch (error) {
      // Never rethrow the library's error as it is; the client builds its own from the code.
      throw new TransportFailure(networkCodeOf(error));
    }
  }

  // Frees the keep-alive connections at once; calls in flight fail with UND_ERR_DESTROYED.
  close(): void {
    this.#pool.destroy().catch(() => undefined);
  }
}

function queryString(query: TransportRequest['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined) params.append(name, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

function networkCodeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'NETWORK_ERROR';
  // The deadline's signal rejects with a DOMException named TimeoutError.
  if ((error as { name?: unknown }).name === 'TimeoutError') return 'ETIMEDOUT';
  const { code, cause } = error as { code?: unknown; cause?: { code?: unknown } };
  if (typeof code === 'string') return code;
  if (typeof cause?.code === 'string') return cause.code;
  return 'NETWORK_ERROR';
}
