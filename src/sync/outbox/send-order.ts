// The order a drain sends a batch of due commands in. A command whose write is of no use after some
// moment (a clock's reminder or an agent's decision for an offer about to run out,
// `CommandExecutor.deadline`) goes ahead of
// the rest, the nearest deadline first; the rest keep the ledger's order (oldest first). With a
// backlog (a CRM outage, a drain held by a dead worker until its lease ran out) a reminder queued a
// minute before its offer expires would otherwise wait behind every older request and write-back,
// and be skipped as expired when its turn came. The drain claims the oldest commands with a deadline
// beside the oldest of all, and claims again every second or so, so one queued during a long batch
// also goes ahead (OutboxDrainService).
export function sendOrder<T extends { id: number }>(
  commands: readonly T[],
  deadlineOf: (command: T) => number | undefined,
): T[] {
  const keyed = commands.map((command) => {
    const deadline = deadlineOf(command);
    return { command, deadline: deadline !== undefined && Number.isFinite(deadline) ? deadline : Infinity };
  });
  return keyed.sort((a, b) => a.deadline - b.deadline || a.command.id - b.command.id).map((k) => k.command);
}

// One of the lanes a drain works through side by side: its commands in send order, how many it has
// in hand at once, and what must never be in hand twice (an ordering key).
export interface Lane<T> {
  readonly commands: readonly T[];
  readonly width: number;
  readonly keyOf: (command: T) => string;
}

// The claimed batch, in send order, as the lanes a drain works through side by side: the commands
// that call the Cash Offer service, up to `serviceWidth` at once, and those that write the CRM alone
// (CommandExecutor.crmOnly), one at a time. One service command that hangs (an answer held 11 s, a
// 502 after the service committed, a 429 waited out) would otherwise hold every other brokerage
// request behind it (full soak 20261241: 10-20 commands a minute, edits and a reject still pending
// at its deadline). Commands of one ordering key (CommandExecutor.orderingKey: an offer request's
// decisions and updates) are never in hand together and keep the batch's order. An empty lane is
// left out. (The drain claims the CRM's commands in a loop of its own, so that a batch of service
// commands waiting on its slowest never holds a reminder queued meanwhile: OutboxDrainService.)
export function sendLanes<T>(
  ordered: readonly T[],
  options: { crmOnly: (command: T) => boolean; keyOf: (command: T) => string; serviceWidth: number },
): Lane<T>[] {
  const service = ordered.filter((c) => !options.crmOnly(c));
  const crm = ordered.filter(options.crmOnly);
  return [
    { commands: service, width: options.serviceWidth, keyOf: options.keyOf },
    { commands: crm, width: 1, keyOf: options.keyOf },
  ].filter((lane) => lane.commands.length > 0);
}

// Works through the lanes side by side while `go()` allows. In a lane, each free place takes the
// first command in the lane's order whose key is not in hand, so a command never waits behind a
// later one, and one key's commands go one after another in order. Settled, not raced: a step that
// throws (the ledger gone) stops every lane after the steps in hand, and the error is thrown only
// once they have ended, so nothing a drain run began is still sending after the run has ended.
export async function runLanes<T>(
  lanes: readonly Lane<T>[],
  step: (command: T) => Promise<void>,
  go: () => boolean,
): Promise<void> {
  const stop = { failed: false };
  const settled = await Promise.allSettled(lanes.map((lane) => runLane(lane, step, go, stop)));
  const rejected = settled.find((lane) => lane.status === 'rejected');
  if (rejected) throw rejected.reason;
}

async function runLane<T>(
  lane: Lane<T>,
  step: (command: T) => Promise<void>,
  go: () => boolean,
  stop: { failed: boolean },
): Promise<void> {
  const waiting = [...lane.commands];
  const inHand = new Set<string>();
  // Places waiting for a key in hand to be let go.
  let wakers: (() => void)[] = [];
  const wakeAll = () => {
    const woken = wakers;
    wakers = [];
    for (const wake of woken) wake();
  };
  const nextFree = (): T | undefined => {
    const at = waiting.findIndex((c) => !inHand.has(lane.keyOf(c)));
    return at < 0 ? undefined : waiting.splice(at, 1)[0];
  };
  const place = async (): Promise<void> => {
    for (;;) {
      if (stop.failed || !go() || waiting.length === 0) return;
      const command = nextFree();
      // Every command left shares a key with one in hand, which wakes this place when it ends.
      if (command === undefined) {
        await new Promise<void>((resolve) => wakers.push(resolve));
        continue;
      }
      const key = lane.keyOf(command);
      inHand.add(key);
      try {
        await step(command);
      } catch (error) {
        stop.failed = true;
        throw error;
      } finally {
        inHand.delete(key);
        wakeAll();
      }
    }
  };
  const places = Array.from({ length: Math.max(1, Math.min(lane.width, lane.commands.length)) }, place);
  const settled = await Promise.allSettled(places);
  const rejected = settled.find((p) => p.status === 'rejected');
  if (rejected) throw rejected.reason;
}
