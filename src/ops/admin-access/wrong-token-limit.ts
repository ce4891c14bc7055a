import { Logger } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

// How many wrong admin tokens one address may present in a window before it is refused for the
// rest of it, the right token included: a token of 16 characters an operator typed is not to be
// guessed at HTTP speed once the listener is reachable beyond loopback. Behind a reverse proxy every
// browser shares the proxy's address, and so this budget.
export const WRONG_TOKENS_ALLOWED = 10;
export const WRONG_TOKEN_WINDOW_SECONDS = 300;

export type TokenVerdict = { right: true } | { right: false; retryAfterSeconds?: number };

// Only a token presented and wrong counts (a bearer header, the sign-in form): a browser with no
// session is sent to the form, a stale session cookie guesses nothing.
export class WrongTokenLimit {
  private readonly logger = new Logger('AdminAccess');
  private readonly wrong = new RateLimiterMemory({
    points: WRONG_TOKENS_ALLOWED,
    duration: WRONG_TOKEN_WINDOW_SECONDS,
  });

  // A point is taken before the token is compared and given back when it is right, so a burst of
  // guesses sent at once cannot all pass a look at the count before any is counted.
  async check(address: string, isRight: () => boolean): Promise<TokenVerdict> {
    const taken = await this.wrong.consume(address).then(
      (res) => ({ res, over: false }),
      (res: RateLimiterRes) => ({ res, over: true }),
    );
    if (taken.over)
      return { right: false, retryAfterSeconds: Math.max(1, Math.ceil(taken.res.msBeforeNext / 1000)) };
    if (isRight()) {
      await this.wrong.reward(address);
      return { right: true };
    }
    if (taken.res.consumedPoints === WRONG_TOKENS_ALLOWED)
      this.logger.warn(
        `${WRONG_TOKENS_ALLOWED} wrong admin tokens from ${address} within ${WRONG_TOKEN_WINDOW_SECONDS / 60} minutes: ` +
          `its sign-ins and bearer requests are refused (429) for ${Math.ceil(taken.res.msBeforeNext / 1000)} s`,
      );
    return { right: false };
  }
}
