import axios, { AxiosInstance, isAxiosError } from 'axios';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

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

// One keep-alive HTTP connection pool to the service for one brokerage. The API key is added per
// request and is not stored on the axios instance, so nothing printable from here holds it.
export class CashOfferTransport {
  readonly #http: AxiosInstance;
  readonly #httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 16 });
  readonly #httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 16 });
  readonly #apiKey: string;

  constructor(
    baseUrl: string,
    apiKey: string,
    private readonly timeoutMs: number,
  ) {
    this.#apiKey = apiKey;
    this.#http = axios.create({
      baseURL: baseUrl,
      httpAgent: this.#httpAgent,
      httpsAgent: this.#httpsAgent,
      timeout: timeoutMs,
      // Redirects could carry the key to another host; environment proxies could see it.
      maxRedirects: 0,
      proxy: false,
      // Every status is an answer; the client classifies it. Bodies are parsed by the client,
      // so an empty or non-JSON body is not an axios error.
      validateStatus: () => true,
      responseType: 'text',
      transformResponse: [(data: unknown) => data],
      headers: { Accept: 'application/json' },
    });
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    try {
      const response = await this.#http.request<string>({
        method: request.method,
        url: request.path,
        params: request.query,
        data: request.body === undefined ? undefined : JSON.stringify(request.body),
        headers: {
          Authorization: this.#apiKey,
          ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
      });
      const body = typeof response.data === 'string' ? response.data : '';
      return { status: response.status, headers: response.headers, body };
    } catch (error) {
      // Never rethrow the axios error: its config carries the Authorization header.
      throw new TransportFailure(networkCodeOf(error));
    }
  }

  close(): void {
    this.#httpAgent.destroy();
    this.#httpsAgent.destroy();
  }
}

function networkCodeOf(error: unknown): string {
  if (isAxiosError(error)) {
    const cause = (error as { cause?: { code?: unknown } }).cause;
    if (typeof cause?.code === 'string') return cause.code;
    if (typeof error.code === 'string') return error.code;
  }
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string')
    return (error as { code: string }).code;
  return 'NETWORK_ERROR';
}
