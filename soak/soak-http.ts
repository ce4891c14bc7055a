// JSON over HTTP to the simulators and the daemon, with a timeout on every call. A read that fails
// before any answer (a kept-alive socket the server closed as it was reused, on a loaded machine) is
// tried again: it changes nothing. A write is not, and its error names the network cause.
const SAFE_METHODS = new Set(['GET', 'HEAD']);
const NETWORK_TRIES = 3;
// A read answered 429 (a run under SOAK_CASH_OFFER_FAULTS, whose checks read the service's API too)
// is waited out, its Retry-After or a growing pause, and tried again as often.
const RATE_LIMITED_TRIES = 20;

export async function httpJson<T>(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      if (SAFE_METHODS.has(method) && attempt < NETWORK_TRIES) continue;
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      throw new Error(`${method} ${url}: ${error instanceof Error ? error.message : String(error)}${cause}`, {
        cause: error,
      });
    }
    const text = await res.text();
    if (res.status === 429 && SAFE_METHODS.has(method) && attempt < RATE_LIMITED_TRIES) {
      const retryAfterSeconds = Number(res.headers.get('retry-after'));
      await new Promise((r) =>
        setTimeout(r, retryAfterSeconds > 0 ? retryAfterSeconds * 1000 : 100 * attempt),
      );
      continue;
    }
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
}

// Thrown by a probe to stop waiting at once (a child exited, the agent failed); other errors are retried.
export class SoakFatalError extends Error {}

// Polls a condition until it holds or the deadline passes; never a fixed sleep as synchronisation.
export async function waitUntil<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs: number,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      if (error instanceof SoakFatalError) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await pause(intervalMs);
  }
}

// Pacing between polls, and the random running time before a kill; not synchronisation.
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
