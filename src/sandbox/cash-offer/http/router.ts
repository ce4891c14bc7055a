import { SandboxAccount } from '../sandbox.types';

export interface RouteContext {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  // The authenticated account (API routes only).
  caller: SandboxAccount;
}

export interface Reply {
  status: number;
  body?: unknown;
  // A body already serialised as JSON (hot paths); takes precedence over `body`.
  json?: string;
  headers?: Record<string, string>;
}

export type Handler = (ctx: RouteContext) => Reply | Promise<Reply>;

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
}

export interface RouteMatch {
  handler: Handler;
  params: Record<string, string>;
}

// A tiny method + path router; `:name` segments capture, and trailing slashes are ignored
// (the quickstart writes `PATCH /offers/`).
export class Router {
  private readonly routes: Route[] = [];

  on(method: string, pattern: string, handler: Handler): this {
    this.routes.push({ method, segments: split(pattern), handler });
    return this;
  }

  match(method: string, path: string): RouteMatch | undefined {
    const parts = split(path);
    for (const route of this.routes) {
      if (route.method !== method || route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const ok = route.segments.every((seg, i) => {
        if (seg.startsWith(':')) {
          params[seg.slice(1)] = safeDecode(parts[i]);
          return true;
        }
        return seg === parts[i];
      });
      if (ok) return { handler: route.handler, params };
    }
    return undefined;
  }

  // Methods some route answers on this path (for a clear 404 message).
  methodsFor(path: string): string[] {
    const parts = split(path);
    return this.routes
      .filter(
        (r) =>
          r.segments.length === parts.length &&
          r.segments.every((s, i) => s.startsWith(':') || s === parts[i]),
      )
      .map((r) => r.method);
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
