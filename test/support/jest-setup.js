// Every test runs in UTC and may talk only to this machine: an outbound connection to any other
// host fails loudly instead of reaching the internet.
process.env.TZ = 'UTC';

const net = require('node:net');

// `node:net` is the worker's own module, shared by every test file the worker runs, while this file
// runs again in each test file's context. Wrapped once per file, each wrapper would hold the one
// before it and, through it, that file's whole context (its modules, its app): a worker's heap grew
// past 1 GB over a run and took longer than jest's half second to exit. So the guard goes on once.
const GUARDED = Symbol.for('cash-offer-sync.loopback-only');
if (!net.Socket.prototype.connect[GUARDED]) {
  const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|::ffff:127\.\d+\.\d+\.\d+)$/;
  const originalConnect = net.Socket.prototype.connect;
  const guardedConnect = function guardedConnect(...args) {
    const first = args[0];
    const options = typeof first === 'object' && first !== null ? first : { port: first, host: args[1] };
    const host = options.host ?? 'localhost';
    if (!options.path && !LOOPBACK.test(String(host))) {
      throw new Error(`test tried to connect to ${host}:${options.port}; tests may only reach 127.0.0.1`);
    }
    return originalConnect.apply(this, args);
  };
  guardedConnect[GUARDED] = true;
  net.Socket.prototype.connect = guardedConnect;
}
