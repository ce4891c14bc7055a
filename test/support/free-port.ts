import { createServer } from 'node:net';

// Below Linux's ephemeral range (32768-60999 by default): the kernel hands ports of that range to
// every outgoing connection (each HTTP call of every test running beside this one), so a port found
// free there can be taken by one between the pick and the bind (EADDRINUSE; seen in CI). Ports
// picked here can only meet another test's pick.
const FIRST = 20_000;
const LAST = 32_767;
const TRIES = 100;

// A free TCP port on 127.0.0.1.
export async function freePort(): Promise<number> {
  for (let i = 0; i < TRIES; i++) {
    const port = FIRST + Math.floor(Math.random() * (LAST - FIRST + 1));
    if ((await bind(port)) !== undefined) return port;
  }
  const any = await bind(0);
  if (any === undefined) throw new Error('no free port on 127.0.0.1');
  return any;
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
