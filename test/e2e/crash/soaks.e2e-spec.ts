// The CI-sized soaks (docs/operations.md, "Crash soak" and "Buyer soak"), one after another in one
// jest worker. Each drives processes on the clock (kills at seeded moments, an agent and buyers
// ticking every 250 ms, a settle that waits for seconds of quiet), so two at once on a two-core
// machine stretch each other: a longer run is more ticks, more reads and more CLI runs, and the suite
// spent more CPU on the four together than on the four alone (docs/architecture.md, "Tests").
// Each case stays runnable alone, by its name:
//   npx jest --selectProjects e2e-process --testPathPatterns soaks -t 'Follow Up Boss'
import './crash-soak.soak-case';
import './crash-soak-workers.soak-case';
import './crash-soak-fub.soak-case';
import './buyer-soak.soak-case';
