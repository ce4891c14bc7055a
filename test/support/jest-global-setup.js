// Deterministic time zone for every worker (they inherit this environment).
module.exports = async () => {
  process.env.TZ = 'UTC';
};
