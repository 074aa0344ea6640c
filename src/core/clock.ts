/**
 * Time enters docpipe only through a Clock, so tests can fake the clock (and nothing else)
 * while talking to a real server over real HTTP.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * A moment on both of the process's own clocks, to tell that the process was stopped (not to
 * tell the time: that is the Clock's). A stop (SIGSTOP) moves both on; a suspended machine
 * only the wall clock (monotonic time stands still, on Linux); the wall clock may be set back.
 */
export interface Moment {
  mono: number;
  wall: number;
}

export const moment = (): Moment => ({ mono: performance.now(), wall: Date.now() });

/** Whether more than `ms` passed since `since`, on either clock. */
export function longerAgo(since: Moment, ms: number): boolean {
  const now = moment();
  return now.mono - since.mono > ms || now.wall - since.wall > ms;
}

/** The longest delay a Node timer takes (2^31 - 1 ms, about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const until = Date.now() + Math.max(0, ms);
      let timer: NodeJS.Timeout;
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      };
      // A wait longer than a timer takes goes in steps (a server may ask for weeks).
      const arm = (left: number): void => {
        timer = setTimeout(() => {
          const rest = until - Date.now();
          if (rest > 0 && left > MAX_TIMER_MS) return arm(rest);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, Math.min(left, MAX_TIMER_MS));
      };
      arm(Math.max(0, ms));
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/**
 * A clock whose time only moves when something sleeps on it or a test advances it.
 * Sleeps resolve at once (after yielding), having moved time forward; `sleeps` records them.
 */
export class ManualClock implements Clock {
  readonly sleeps: number[] = [];
  private current: number;

  constructor(start: number | string = Date.UTC(2026, 0, 1)) {
    this.current = typeof start === 'string' ? Date.parse(start) : start;
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.sleeps.push(ms);
    this.current += Math.max(0, ms);
    await Promise.resolve();
    signal?.throwIfAborted();
  }
}
