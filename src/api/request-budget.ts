/**
 * The request budget: at most `perHour` requests in any sliding hour for a scope (the
 * analytics budget is per organization), at most `maxRequests` in this run, and never a wait
 * longer than `maxWaitMs`. Its memory is the request log in the database, so a cron run that
 * starts right after another still sees the hour's requests, and one that runs beside
 * another reads it again before each request.
 */
import { longerAgo, moment, systemClock, type Clock } from '../core/clock.js';
import { formatDuration } from '../core/duration.js';
import { BudgetExhaustedError } from '../core/errors.js';

export const HOUR_MS = 3_600_000;

/**
 * How much later than its hour a request leaves this budget. A request is stamped here just
 * before it is sent, a server stamps it when it arrives: one that took longer to arrive (a
 * new connection's handshake) than the request an hour after it would otherwise still be in
 * the server's hour when that one arrives, and be answered 429.
 */
export const SLOT_MARGIN_MS = 2_000;
/** The hour as docpipe's budget counts it (the limiter, `status`, the backlog's ETA). */
export const BUDGET_WINDOW_MS = HOUR_MS + SLOT_MARGIN_MS;

/**
 * Pure: how long to wait before one more request may start, given the start times of the
 * requests already made (any order) and the hourly allowance.
 */
export function planRequestSlot(times: readonly number[], now: number, perHour: number, windowMs = HOUR_MS): number {
  const limit = Math.floor(perHour);
  const recent = times.filter((t) => t > now - windowMs);
  // Under the limit (the usual case): no need to sort.
  if (recent.length < limit) return 0;
  recent.sort((a, b) => a - b);
  // The slot frees up when the oldest request that keeps us at the limit leaves the window.
  const blocking = recent[recent.length - limit];
  return blocking === undefined ? 0 : blocking + windowMs - now;
}

/** Where the budget remembers requests across runs. */
export interface RequestHistory {
  /** Start times (ms) of the scope's requests since `sinceMs`. */
  requestTimes(scope: string, sinceMs: number): Promise<number[]>;
  /**
   * Whether another run may be spending the budget right now (its requests since the last
   * read are not in it): the budget then reads the history again before each request.
   * Meant to be cheap when nothing changed.
   */
  othersAtWork?(): boolean;
  /**
   * A short lock shared by every run on this history, held from a last read of it until the
   * request taken is journalled (the release). Two runs that read the hour at one moment
   * (both woken for the slot that frees up) would otherwise both take its last slot.
   */
  lockSlot?(signal?: AbortSignal): Promise<() => void>;
}

/** Slots left (by this run's view) at which a slot is taken under the history's lock. */
const TIGHT_SLOTS = 2;

/**
 * A slot whose journal line is written longer than this after the budget last looked (at the
 * hour, or at whether another run is at work) is taken again: the run was stopped in between
 * (SIGSTOP, a suspended machine), and another run may have taken the same slot meanwhile (one
 * that waited for the slot's lock gives up on it after 5 s: ../spool/short-lock.ts).
 */
export const STOPPED_MS = 2_000;

const noop = (): void => undefined;

export interface RequestBudgetOptions {
  scope: string;
  /** @default 100 */
  perHour?: number;
  /** Cap on requests in this run. @default Infinity */
  maxRequests?: number;
  /** Longest wait for the hourly budget before giving up with BudgetExhaustedError. @default 60_000 */
  maxWaitMs?: number;
  /** @default systemClock */
  clock?: Clock;
  history?: RequestHistory;
  /** Told before each wait for the hourly budget, with its length and the requests in the hour. */
  onWait?: (wait: { ms: number; usedLastHour: number }) => void;
  /**
   * What the user can do, appended to the BudgetExhaustedError's message: `hourly` when the
   * hourly budget is spent, `cap` when the run's cap is reached (the CLI names its options).
   */
  hints?: { hourly?: string; cap?: string };
  /**
   * Runs before the hourly budget makes a request wait (or stops the run), so that what
   * would fail anyway fails first: the key check. What it throws, the acquire throws.
   */
  beforeWait?: (signal: AbortSignal | undefined) => Promise<void>;
}

/**
 * A request's slot and its journal line, as one step: `journal` writes the line (on disk when
 * it returns) while the slot's lock is held. A run stopped between the budget's look and that
 * line (see STOPPED_MS) withdraws the line (`withdraw`), gives the slot back and takes one
 * again, after a fresh look: the hour may have no slot left for it now.
 */
export async function takeSlot<T>(budget: RequestBudget, journal: () => T, withdraw: (written: T) => void, signal?: AbortSignal): Promise<T> {
  for (;;) {
    const release = await budget.acquire(signal);
    try {
      const written = journal();
      if (!budget.stoppedSinceLook()) return written;
      withdraw(written);
      budget.takeBack();
    } finally {
      release(); // another run's next read of the hour finds this request (or its withdrawal)
    }
  }
}

export class RequestBudget {
  readonly scope: string;
  readonly perHour: number;
  readonly maxRequests: number;
  private readonly maxWaitMs: number;
  private readonly clock: Clock;
  private readonly history: RequestHistory | undefined;
  private readonly onWait: RequestBudgetOptions['onWait'];
  private readonly hints: NonNullable<RequestBudgetOptions['hints']>;
  private readonly beforeWait: RequestBudgetOptions['beforeWait'];
  /** Start times of the scope's requests, ascending; those before `head` left the hour. */
  private times: number[] = [];
  private head = 0;
  private loaded = false;
  private used = 0;
  private queue: Promise<void> = Promise.resolve();
  /** When the budget last looked. */
  private lookedAt = moment();
  /** When the last slot was taken (this budget's clock), for `takeBack`. */
  private lastTaken = 0;

  constructor(options: RequestBudgetOptions) {
    this.scope = options.scope;
    this.perHour = options.perHour ?? 100;
    this.maxRequests = options.maxRequests ?? Number.POSITIVE_INFINITY;
    this.maxWaitMs = options.maxWaitMs ?? 60_000;
    this.clock = options.clock ?? systemClock;
    this.history = options.history;
    this.onWait = options.onWait;
    this.hints = options.hints ?? {};
    this.beforeWait = options.beforeWait;
    if (!(this.perHour >= 1)) throw new RangeError(`requests per hour must be >= 1, got ${this.perHour}`);
  }

  /** Requests made through this budget in this run. */
  get requestsUsed(): number {
    return this.used;
  }

  /** Whether the run's cap allows another request (the hourly budget may still make it wait). */
  get hasRunBudget(): boolean {
    return this.used < this.maxRequests;
  }

  /** Reads the hour's requests from the history, unless read since the last wait (the first acquire does it otherwise). */
  async ready(): Promise<void> {
    if (this.loaded) return;
    const since = this.clock.now() - BUDGET_WINDOW_MS;
    // What the read finds is as old as its start.
    const readAt = moment();
    this.times = this.history ? (await this.history.requestTimes(this.scope, since)).sort((a, b) => a - b) : [];
    this.head = 0;
    this.loaded = true;
    this.lookedAt = readAt;
  }

  /** Whether more than STOPPED_MS passed, on either clock, since the budget last looked. */
  stoppedSinceLook(): boolean {
    return longerAgo(this.lookedAt, STOPPED_MS);
  }

  /** Gives back the slot the last acquire took (its attempt was withdrawn unsent), and reads the hour again before the next. */
  takeBack(): void {
    this.refund(this.lastTaken);
    this.loaded = false;
  }

  /**
   * Waits for a slot and takes it, or throws BudgetExhaustedError. Concurrent callers queue,
   * so that two of them never see the same free slot. Resolves to a release, to call once the
   * request is journalled: near the end of the hour's budget, or with another run at work, the
   * slot is taken under the history's lock (see RequestHistory.lockSlot), held until then.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    const next = this.queue.then(() => this.acquireNow(signal));
    this.queue = next.then(noop, noop);
    return next;
  }

  private async acquireNow(signal?: AbortSignal): Promise<() => void> {
    if (this.used >= this.maxRequests) {
      const hint = this.hints.cap ? `; ${this.hints.cap}` : '';
      throw new BudgetExhaustedError(`request cap for this run reached (${this.maxRequests} requests)${hint}`);
    }
    // Another run at work on the same budget (a cron sync beside a backfill): what it spent
    // since this run last read the history counts too, read under the lock (see lockSlot).
    const lockSlot = this.history?.lockSlot?.bind(this.history);
    this.lookedAt = moment();
    const overlapping = this.history?.othersAtWork?.() === true;
    if (overlapping) this.loaded = false;
    let locked = overlapping && lockSlot !== undefined;
    for (;;) {
      const release = locked ? await lockSlot!(signal) : noop;
      let wait: number;
      try {
        if (locked) this.loaded = false;
        await this.ready();
        wait = this.slotWait(this.clock.now());
      } catch (error) {
        release();
        throw error;
      }
      if (wait === 0) {
        // With slots to spare, nothing another run can have taken unseen (at most the first
        // request of a run that has journalled none yet) makes this one too many; the last
        // ones are taken under the lock, after a read under it.
        if (locked || lockSlot === undefined || this.slotsLeft() > TIGHT_SLOTS) {
          this.take();
          return release;
        }
        locked = true;
        continue;
      }
      release(); // taken meanwhile by another run: wait for the next
      await this.beforeWait?.(signal);
      if (wait > this.maxWaitMs) {
        const at = new Date(this.clock.now() + wait).toISOString().replace(/:\d\d\.\d+Z$/, 'Z');
        const hint = this.hints.hourly ? `; ${this.hints.hourly}` : '';
        throw new BudgetExhaustedError(
          `hourly request budget spent (${this.perHour} per hour); next slot in ${Math.ceil(wait / 1000)} s (${formatDuration(wait)}, at ${at})${hint}`,
        );
      }
      this.onWait?.({ ms: wait, usedLastHour: this.times.length - this.head });
      await this.clock.sleep(wait, signal);
      // Another process may have spent the budget meanwhile: read the log again.
      this.loaded = false;
    }
  }

  private take(): void {
    this.lastTaken = this.clock.now();
    this.times.push(this.lastTaken);
    this.used++;
  }

  /** Slots of the hour left by this run's view (after slotWait dropped those that left it). */
  private slotsLeft(): number {
    return Math.floor(this.perHour) - (this.times.length - this.head);
  }

  /**
   * Gives back the slot of an attempt that was withdrawn before it was sent (taken at
   * `startedAt` or just before): it was no request.
   */
  refund(startedAt: number): void {
    for (let i = this.times.length - 1; i >= this.head; i--) {
      if ((this.times[i] ?? Infinity) <= startedAt) {
        this.times.splice(i, 1);
        this.used = Math.max(0, this.used - 1);
        return;
      }
    }
  }

  /**
   * planRequestSlot for the sorted times kept here, in constant time per request (a run of a
   * million requests an hour would otherwise rescan the hour before each one).
   */
  private slotWait(now: number): number {
    while (this.head < this.times.length && (this.times[this.head] ?? 0) <= now - BUDGET_WINDOW_MS) this.head++;
    if (this.head > 1_024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
    const limit = Math.floor(this.perHour);
    if (this.times.length - this.head < limit) return 0;
    const blocking = this.times[this.times.length - limit] ?? now;
    return Math.max(0, blocking + BUDGET_WINDOW_MS - now);
  }
}
