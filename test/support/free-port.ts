import { createServer } from 'node:net';

// Below Linux's ephemeral range (32768-60999 by default): the kernel hands ports of that range to
// every outgoing connection (each HTTP call of every test running beside this one), so a port found
// free there can be taken by one between the pick and the bind (EADDRINUSE; seen in CI).
const FIRST = 20_000;
const LAST = 32_767;
const TRIES = 100;
// Each jest worker picks from a slice of its own: a port is picked, released, and bound later by a
// child process, so two workers picking at random from one range could both be handed it (ci45:
// "ADMIN_PORT 31671 is already in use"). Outside jest (a soak run alone) the whole range is used.
const SLICES = 8;
// Ports this process handed out: within one worker, a port picked and not yet bound must not be
// picked again by the next call.
const handedOut = new Set<number>();

// A free TCP port on 127.0.0.1.
export async function freePort(): Promise<number> {
  const [first, last] = workerRange(process.env.JEST_WORKER_ID);
  for (let i = 0; i < TRIES; i++) {
    const port = first + Math.floor(Math.random() * (last - first + 1));
    if (handedOut.has(port)) continue;
    handedOut.add(port); // before the bind: a call running beside this one must not pick it meanwhile
    if ((await bind(port)) !== undefined) return port;
    handedOut.delete(port);
  }
  const any = await bind(0);
  if (any === undefined) throw new Error('no free port on 127.0.0.1');
  handedOut.add(any);
  return any;
}

// The ports [first, last] a jest worker (1-based id) picks from; the whole range outside jest.
export function workerRange(workerId: string | undefined): [number, number] {
  const id = Number(workerId);
  if (!Number.isInteger(id) || id < 1) return [FIRST, LAST];
  const size = Math.floor((LAST - FIRST + 1) / SLICES);
  const first = FIRST + ((id - 1) % SLICES) * size;
  return [first, first + size - 1];
}

// Binds `port` (0: any) and releases it; the port bound, or undefined when it was taken.
function bind(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = address !== null && typeof address !== 'string' ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}
