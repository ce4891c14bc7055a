const Sequencer = require('@jest/test-sequencer').default;

// Jest runs the longest test files first when it knows their durations from an earlier run; on a
// fresh clone it knows none and falls back to file size, which puts the crash soaks (short files that
// run for minutes) last, so the whole run waits on them at its end. Where there is no timing, this
// orders by tier instead: the suites that kill and restart processes first, then the other process
// suites, the flows, the simulators and the medium tier, and the unit specs last (they fill the gaps).
const TIERS = [
  /\/test\/e2e\/(crash|workers)\//,
  /\/test\/e2e\/(alerts|cli|console|daemon)\//,
  /\/test\/e2e\/(sync-|webhooks|crm\/)/,
  /\/test\/(e2e|medium)\//,
];

function tierOf(path) {
  const normalised = path.replace(/\\/g, '/');
  const index = TIERS.findIndex((pattern) => pattern.test(normalised));
  return index === -1 ? TIERS.length : index;
}

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.every((test) => test.duration != null)) return sorted;
    // Array.prototype.sort is stable: within a tier, the default order (failed, duration, size) holds.
    return [...sorted].sort((a, b) => tierOf(a.path) - tierOf(b.path));
  }
}

module.exports = SlowFirstSequencer;
module.exports.tierOf = tierOf;
