// Every test runs in UTC and may talk only to this machine: an outbound connection to any other
// host fails loudly instead of reaching the internet.
process.env.TZ = 'UTC';

const net = require('node:net');
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|::ffff:127\.\d+\.\d+\.\d+)$/;
const originalConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const first = args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: args[1] };
  const host = options.host ?? 'localhost';
  if (!options.path && !LOOPBACK.test(String(host))) {
    throw new Error(`test tried to connect to ${host}:${options.port}; tests may only reach 127.0.0.1`);
  }
  return originalConnect.apply(this, args);
};
