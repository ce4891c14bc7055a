// Stops the embedded PostgreSQL server the global setup started (and deletes its data directory).
module.exports = async () => {
  const server = globalThis.__embeddedPostgres;
  if (!server) return;
  globalThis.__embeddedPostgres = undefined;
  await server.stop();
};
