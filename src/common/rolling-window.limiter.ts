import { AdaptivePace, type PaceCut } from './adaptive-pace';
import { currentCallPriority, type CallPriority } from './call-priority';
import type { EndTurn, RateLimit } from './rate-limit';
import type { SharedAccountLimiter } from './shared-account-limiter';

// A turn's slot is given back at the latest this long after its call left, answered or not: a
// connection that never answers (the HubSpot SDK's fetch has no timeout of its own; the call
// policy only stops waiting for it) must not hold a slot for good. A request that has not reached
// the remote two minutes after it left is taken never to arrive.
export const LONGEST_CALL_MS = 120_000;

// One remote account's request budget in this process: callers wait for a turn instead of
// spending requests on 429s. With workers sharing a ledger, each turn also takes a turn of the
// account's budget shared by all of them.
//
// The remotes count rolling windows from the moment a call ARRIVES and allow the whole burst at
// once (HubSpot's 429s name TEN_SECONDLY_ROLLING; its search limit is per second; FUB counts a
// sliding window). A limiter that opens a call's window when the call LEAVES can be out-run: a
// call held up on the way (a busy event loop here or at the remote, the network) arrives late, and
// the call that takes its place a window after it left can arrive within a window of it (the
// storm bench saw HubSpot refuse a search so, with a 250 ms margin). So the budget is `max` slots;
// a turn holds one from the moment it is given until its call has settled (EndTurn), and the slot
// is given again only a whole window after that. A call settles after the remote counted it (the
// answer comes after the arrival), so two calls on one slot arrive at least a window apart, and
// no window of any start, counted at the remote, holds more than `max` calls, however long each
// took on the way. The price is a call's own time: a slot serves one call per (call time +
// window), not one per window.
//
// Not rate-limiter-flexible (the shared budget is, ledger/postgres-account-limiter.ts): its
// windows open when a point is consumed, and its queue wakes a waiter on a timer for the window it
// saw, not when a call settles. Slots are free at a time read from Date.now() on each wake: a
// timer may fire a millisecond early by that clock, and the waiter then waits on.
//
// A remote that refuses calls below the limit given (slowDown) has the slots used cut (adaptive-pace.ts):
// only the first `pace.allowed` slots are given, halved by each refusal and grown back one at a time.
export class RollingWindowLimiter {
  // When each slot may be given again (Date.now() ms); Infinity while its turn is out.
  private readonly freeAt: number[];
  // Callers waiting for a slot, longest first, by priority (call-priority.ts): a slot goes to the
  // foreground callers first. (In the budget shared by workers, each worker's turn is taken in
  // order: the priority holds among one worker's calls.)
  private readonly waiting: Record<CallPriority, ((slot: number) => void)[]> = {
    foreground: [],
    background: [],
  };
  // The one timer for the next slot to come free; it is only set while someone waits, so an idle
  // limiter keeps no process alive.
  private wake: NodeJS.Timeout | undefined;
  private readonly pace: AdaptivePace;

  constructor(
    private readonly limit: RateLimit,
    private readonly shared?: { limiter: SharedAccountLimiter; account: string; longestCallMs: number },
    // How long a turn may be out before its slot is given back anyway (account-limiter.factory.ts).
    private readonly longestCallMs: number = LONGEST_CALL_MS,
  ) {
    this.freeAt = Array<number>(Math.max(1, Math.floor(limit.max))).fill(-Infinity);
    this.pace = new AdaptivePace(this.freeAt.length, {
      holdMs: limit.intervalMs,
      recoverEveryMs: PACE_RECOVERY_WINDOWS * limit.intervalMs,
    });
  }

  // The remote refused a call as over its limit (a 429): fewer slots from now on, for a while.
  slowDown(): PaceCut | undefined {
    return this.pace.slowDown(Date.now());
  }

  // Resolves when one more call may leave, with the function that ends its turn once it settled.
  async acquire(): Promise<EndTurn> {
    const priority = currentCallPriority();
    const slot = await new Promise<number>((granted) => {
      this.waiting[priority].push(granted);
      this.grant();
    });
    const endLocal = this.turnOf(slot);
    try {
      const endShared = await this.shared?.limiter.acquire(
        this.shared.account,
        this.limit,
        this.shared.longestCallMs,
      );
      return once(() => {
        endShared?.();
        endLocal();
      });
    } catch (error) {
      endLocal();
      throw error;
    }
  }

  private waitingCount(): number {
    return this.waiting.foreground.length + this.waiting.background.length;
  }

  private turnOf(slot: number): EndTurn {
    const end = once(() => {
      clearTimeout(longest);
      this.freeAt[slot] = Date.now() + this.limit.intervalMs;
      this.grant();
    });
    const longest = setTimeout(end, this.longestCallMs);
    longest.unref();
    return end;
  }

  // Gives the free slots to the callers waiting longest, foreground first, then waits for the next
  // window to end.
  private grant(): void {
    clearTimeout(this.wake);
    this.wake = undefined;
    const now = Date.now();
    const usable = this.pace.allowed(now);
    for (let slot = 0; slot < usable && this.waitingCount() > 0; slot++) {
      if (this.freeAt[slot] > now) continue;
      this.freeAt[slot] = Infinity;
      (this.waiting.foreground.shift() ?? this.waiting.background.shift())!(slot);
    }
    if (this.waitingCount() === 0) return;
    const next = Math.min(...this.freeAt.slice(0, usable));
    // Every slot's turn is out: the first to end calls grant.
    if (next === Infinity) return;
    this.wake = setTimeout(() => this.grant(), Math.max(1, Math.ceil(next - now)));
  }
}

// After a cut, the pace grows back by one slot every this many windows without a refusal.
export const PACE_RECOVERY_WINDOWS = 5;

function once(end: () => void): EndTurn {
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    end();
  };
}
