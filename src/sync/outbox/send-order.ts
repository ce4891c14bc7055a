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

// The claimed batch, in send order, as the lanes a drain works through side by side: the commands
// that call the Cash Offer service, and those that write the CRM alone (CommandExecutor.crmOnly).
// Each lane keeps the batch's order; an empty lane is left out.
export function sendLanes<T>(ordered: readonly T[], crmOnly: (command: T) => boolean): T[][] {
  const service = ordered.filter((c) => !crmOnly(c));
  const crm = ordered.filter(crmOnly);
  return [service, crm].filter((lane) => lane.length > 0);
}

// Works through the lanes side by side, each in its order, while `go()` allows. Settled, not raced:
// a step that throws (the ledger gone) stops the other lanes after the step each has in hand, and
// the error is thrown only once they have, so nothing a drain run began is still sending after the
// run has ended.
export async function runLanes<T>(
  lanes: readonly (readonly T[])[],
  step: (command: T) => Promise<void>,
  go: () => boolean,
): Promise<void> {
  let failed = false;
  const settled = await Promise.allSettled(
    lanes.map(async (lane) => {
      for (const command of lane) {
        if (failed || !go()) return;
        try {
          await step(command);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    }),
  );
  const rejected = settled.find((lane) => lane.status === 'rejected');
  if (rejected) throw rejected.reason;
}
