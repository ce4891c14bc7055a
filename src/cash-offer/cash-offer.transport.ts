import axios, { type AxiosInstance, type AxiosRequestConfig } from 'axios';
import http, {
  type AgentOptions,
  type ClientRequest,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { authorizationHeader, type KeyForm } from './key-form';

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

// Node's code for a connection attempt that timed out: the deadline passed before the socket
// connected, so nothing of the request was sent.
export const CONNECT_TIMEOUT = 'ERR_SOCKET_CONNECTION_TIMEOUT';
// The deadline passed after the request may have been sent.
export const ANSWER_TIMEOUT = 'ETIMEDOUT';
// The transport was closed (close()) while the request was in flight.
export const CLIENT_CLOSED = 'ERR_CLIENT_CLOSED';
// An answer longer than the transport reads (MAX_ANSWER_BYTES): cut, never held whole in memory.
export const ANSWER_TOO_LARGE = 'ERR_ANSWER_TOO_LARGE';
// The longest answer read: far above any page the service gives (500 offers are about 1 MB, a page
// of 100 listings with 50 photo URLs each a few MB), far below the daemon's heap (512 MB), so a
// proxy's runaway body or a service answering every record it has cannot take the daemon down.
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

const MAX_CONNECTIONS = 16;
// axios turns TCP keep-alive probes on, at one minute idle, on every socket it is handed, each
// request; Node skips the call when the figure is unchanged, so the agent uses the same one.
// (With Node's default of one second the two alternate: 8 setsockopt calls per request.)
const TCP_KEEPALIVE_MS = 60_000;
// How long an idle connection is kept. Node's agent closes one a second before the time a server's
// `Keep-Alive: timeout=N` names only when it has an idle limit of its own; without one it keeps the
// connection until the server closes it, and a call sent on it just then is reset (a create or a
// decision, which cannot be sent twice, then ends unknown). 30 s is under the idle limits of the
// usual proxies that name none (AWS ALB's 60 s, nginx's 75 s).
const IDLE_CONNECTION_MS = 30_000;

// One keep-alive connection pool to the service for one brokerage: axios over node:http with a
// keep-alive Agent (at most 16 sockets). axios is configured to do as little as a bare node:http
// loop would (bench:client measures it; docs/cash-offer-client.md, "Transport"): no redirects
// (they could carry the key to another host; maxRedirects 0 also skips follow-redirects), no
// proxy from the environment, every status an answer for the client to classify, bodies passed
// through as text both ways (the client parses JSON once, itself). The API key is added per
// request and stored on neither the instance nor the agent, so nothing printable from here holds
// it; axios's own error, which holds the request config and so the key, never leaves send().
export class CashOfferTransport {
  readonly #http: AxiosInstance;
  readonly #agent: http.Agent;
  readonly #apiKey: string;
  #closed = false;

  constructor(baseUrl: string, apiKey: string, maxAnswerBytes = MAX_ANSWER_BYTES) {
    const url = new URL(baseUrl);
    this.#apiKey = apiKey;
    const agentOptions: AgentOptions = {
      keepAlive: true,
      keepAliveMsecs: TCP_KEEPALIVE_MS,
      timeout: IDLE_CONNECTION_MS,
      maxSockets: MAX_CONNECTIONS,
    };
    this.#agent = url.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.#http = axios.create({
      baseURL: url.href.replace(/\/+$/, ''),
      httpAgent: this.#agent,
      httpsAgent: this.#agent,
      proxy: false,
      maxRedirects: 0,
      maxContentLength: maxAnswerBytes,
      validateStatus: null,
      responseType: 'text',
      // The body goes out as the JSON text send() made, and comes back as text: no second parse.
      transformRequest: [],
      transformResponse: [],
      headers: { accept: 'application/json' },
    });
  }

  // `deadline` is the attempt's one wall-clock limit, from sending to the last byte of the answer
  // (the client's call policy, cash-offer-call.policy.ts, aborts it; axios's own `timeout` is a
  // socket idle timer, which a slow trickle of bytes keeps alive). Its abort fails the call with a connect or an answer
  // timeout, as the request had left or not.
  async send(
    request: TransportRequest,
    deadline: AbortSignal,
    keyForm: KeyForm = 'as-configured',
  ): Promise<TransportResponse> {
    const connection = { connected: false };
    const hasBody = request.body !== undefined;
    const config: AxiosRequestConfig<string> = {
      method: request.method,
      url: request.path + queryString(request.query),
      headers: {
        authorization: authorizationHeader(this.#apiKey, keyForm),
        ...(hasBody ? { 'content-type': 'application/json' } : {}),
      },
      data: hasBody ? JSON.stringify(request.body) : undefined,
      signal: deadline,
      transport: watchingConnection(connection),
    };
    try {
      const response = await this.#http.request<string>(config);
      return { status: response.status, headers: response.headers, body: response.data ?? '' };
    } catch (error) {
      // Never rethrow the library's error (it holds the config, so the key); only a code leaves.
      if (this.#closed) throw new TransportFailure(CLIENT_CLOSED);
      if (deadline.aborted)
        throw new TransportFailure(connection.connected ? ANSWER_TIMEOUT : CONNECT_TIMEOUT);
      throw new TransportFailure(networkCodeOf(error));
    }
  }

  // Frees the keep-alive connections, for a caller that knows none is in use (it would cut a call
  // in flight); a later call opens a new one.
  releaseConnections(): void {
    this.#agent.destroy();
  }

  // Frees the keep-alive connections at once; calls in flight fail with CLIENT_CLOSED.
  close(): void {
    this.#closed = true;
    this.#agent.destroy();
  }
}

// node:http or node:https as axios would pick them, noting when the request's socket connects:
// before that moment nothing of the request has left this process.
function watchingConnection(connection: { connected: boolean }) {
  return {
    request(options: RequestOptions, onResponse: (res: IncomingMessage) => void): ClientRequest {
      const module = options.protocol === 'https:' ? https : http;
      const req = module.request(options, onResponse);
      req.once('socket', (socket: Socket) => {
        if (socket.connecting) socket.once('connect', () => (connection.connected = true));
        else connection.connected = true;
      });
      return req;
    },
  };
}

export function queryString(query: TransportRequest['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined) params.append(name, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

function networkCodeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'NETWORK_ERROR';
  const { code, cause, message } = error as { code?: unknown; cause?: { code?: unknown }; message?: unknown };
  // axios's words when an answer passed maxContentLength (it names no code of its own for it).
  if (typeof message === 'string' && message.startsWith('maxContentLength size')) return ANSWER_TOO_LARGE;
  // axios's name for an answer whose stream ended before its last byte: the connection dropped.
  if (code === 'ERR_BAD_RESPONSE') return 'ECONNRESET';
  if (typeof code === 'string') return code;
  if (typeof cause?.code === 'string') return cause.code;
  return 'NETWORK_ERROR';
}
