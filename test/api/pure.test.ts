import { describe, expect, it, vi } from 'vitest';
import { parseRetryAfter } from '../../src/api/retry-after.js';
import { decideRetry } from '../../src/api/retry-policy.js';
import { planRequestSlot, RequestBudget, HOUR_MS, SLOT_MARGIN_MS, takeSlot } from '../../src/api/request-budget.js';
import { checkBaseUrl, isErrorBody } from '../../src/api/http-client.js';
import { ManualClock } from '../../src/core/clock.js';
import {
  BudgetExhaustedError,
  DataError,
  HttpError,
  MalformedResponseError,
  NetworkError,
  RateLimitError,
  TimeoutError,
  UsageError,
} from '../../src/core/errors.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');

describe('parseRetryAfter', () => {
  it.each([
    ['2', 2000],
    ['0', 0],
    [' 120 ', 120_000],
    ['1.5', 1500],
    ['Sun, 22 Nov 2026 12:00:30 GMT', 30_000],
    ['Sun, 22 Nov 2026 11:00:00 GMT', 0],
    [null, undefined],
    ['', undefined],
    ['soon', undefined],
    ['-5', undefined],
    ['12:00', undefined],
    // The obsolete forms of an HTTP date.
    ['Sunday, 22-Nov-26 12:00:30 GMT', 30_000],
    ['Sun Nov 22 12:00:30 2026', 30_000],
    // Words and a number are no date (Date.parse takes them for one, long past or years ahead).
    ['Retry 10', undefined],
    ['retry in 60', undefined],
    ['wait 3', undefined],
    ['foo bar 2030', undefined],
  ])('%s -> %s', (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });
});

describe('decideRetry', () => {
  const rl = (ms?: number, status = 429) => new RateLimitError(status, 'GET', '/x', ms);
  const http = (status: number) => new HttpError(status, 'GET', '/x');
  const net = (phase: 'before-send' | 'after-send') => new NetworkError('POST', '/x', phase, 'E');
  it.each([
    ['429 with Retry-After', rl(2000), true, { action: 'wait', ms: 2000 }],
    ['429 with Retry-After on POST', rl(2000), false, { action: 'wait', ms: 2000 }],
    ['503 with Retry-After', rl(1000, 503), false, { action: 'wait', ms: 1000 }],
    ['429 without Retry-After', rl(undefined), false, { action: 'backoff' }],
    ['503 without Retry-After, POST', http(503), false, { action: 'backoff' }],
    ['500 on GET', http(500), true, { action: 'backoff' }],
    ['500 on POST is unknown, not retried', http(500), false, { action: 'abort' }],
    ['502 on POST', http(502), false, { action: 'abort' }],
    ['400', http(400), true, { action: 'abort' }],
    ['401', http(401), true, { action: 'abort' }],
    ['404', http(404), true, { action: 'abort' }],
    ['refused before send, POST', net('before-send'), false, { action: 'backoff' }],
    ['reset after send, POST', net('after-send'), false, { action: 'abort' }],
    ['reset after send, GET', net('after-send'), true, { action: 'backoff' }],
    ['timeout, POST', new TimeoutError('POST', '/x', 'after-send', 'timeout'), false, { action: 'abort' }],
    ['malformed JSON, GET', new MalformedResponseError('bad'), true, { action: 'backoff' }],
    ['malformed JSON, POST', new MalformedResponseError('bad'), false, { action: 'abort' }],
    ['schema mismatch', new DataError('bad'), true, { action: 'abort' }],
    ['budget', new BudgetExhaustedError('spent'), true, { action: 'abort' }],
  ] as const)('%s', (_name, error, idempotent, expected) => {
    expect(decideRetry(error, idempotent)).toEqual(expected);
  });
  it('a 429 without Retry-After is waited for as the caller says (a run that waits for the budget), a 503 without one backed off', () => {
    expect(decideRetry(rl(undefined), true, 600_000)).toEqual({ action: 'wait', ms: 600_000 });
    expect(decideRetry(rl(2000), true, 600_000)).toEqual({ action: 'wait', ms: 2000 });
    expect(decideRetry(rl(undefined, 503), true, 600_000)).toEqual({ action: 'backoff' });
  });
});

describe('planRequestSlot', () => {
  it('allows requests under the hourly budget at once', () => {
    expect(planRequestSlot([], NOW, 100)).toBe(0);
    expect(planRequestSlot(Array.from({ length: 99 }, (_, i) => NOW - i * 1000), NOW, 100)).toBe(0);
  });
  it('waits until the oldest request of a full hour leaves the window', () => {
    const times = Array.from({ length: 100 }, (_, i) => NOW - 30 * 60_000 + i * 1000);
    expect(planRequestSlot(times, NOW, 100)).toBe(30 * 60_000);
  });
  it('ignores requests older than an hour', () => {
    const times = Array.from({ length: 100 }, () => NOW - HOUR_MS);
    expect(planRequestSlot(times, NOW, 100)).toBe(0);
  });
});

describe('RequestBudget', () => {
  it('stops at the run cap', async () => {
    const budget = new RequestBudget({ scope: 's', perHour: 100, maxRequests: 2, clock: new ManualClock(NOW) });
    await budget.acquire();
    await budget.acquire();
    await expect(budget.acquire()).rejects.toThrow(BudgetExhaustedError);
    expect(budget.requestsUsed).toBe(2);
  });
  it('remembers earlier runs through its history and waits up to a minute', async () => {
    const clock = new ManualClock(NOW);
    const earlier = Array.from({ length: 5 }, (_, i) => NOW - HOUR_MS + 30_000 + i);
    const budget = new RequestBudget({
      scope: 's',
      perHour: 5,
      clock,
      history: { requestTimes: (scope, since) => Promise.resolve(scope === 's' ? earlier.filter((t) => t > since) : []) },
    });
    await budget.acquire();
    // 30 s until the oldest leaves the hour, and the margin for a server that stamped it later.
    expect(clock.sleeps).toEqual([30_000 + SLOT_MARGIN_MS]);
  });
  it('stops instead of waiting more than maxWaitMs', async () => {
    const clock = new ManualClock(NOW);
    const budget = new RequestBudget({ scope: 's', perHour: 2, clock, maxWaitMs: 60_000 });
    await budget.acquire();
    await budget.acquire();
    await expect(budget.acquire()).rejects.toThrow(/hourly request budget spent/);
    expect(clock.sleeps).toEqual([]);
  });
  it('gives back the slot of an attempt withdrawn before it was sent', async () => {
    const clock = new ManualClock(NOW);
    const budget = new RequestBudget({ scope: 's', perHour: 2, maxRequests: 2, clock, maxWaitMs: 0 });
    await budget.acquire();
    await budget.acquire();
    budget.refund(clock.now());
    expect(budget.requestsUsed).toBe(1);
    // The slot is free again, within the hour and within the run's cap.
    await budget.acquire();
    await expect(budget.acquire()).rejects.toThrow(BudgetExhaustedError);
    expect(clock.sleeps).toEqual([]);
  });
});

describe('isErrorBody', () => {
  it('is an error only when error says something and no answer field is there', () => {
    expect(isErrorBody({ error: 'Job store unavailable' })).toBe(true);
    expect(isErrorBody({ error: { message: 'bad gateway' } })).toBe(true);
    expect(isErrorBody({ web: 1, api: 2, other: 0, total: 3, error: null })).toBe(false);
    // A job that failed, its reason in `error`, its id missing (no field of a job is required).
    expect(isErrorBody({ status: 'failed', error: 'could not clone the repository' })).toBe(false);
    // An error that says it is one.
    expect(isErrorBody({ status: 'error', error: 'upstream timed out' })).toBe(true);
    expect(isErrorBody({ searches: [], error: '' })).toBe(false);
    expect(isErrorBody({ searches: [], error: false })).toBe(false);
    expect(isErrorBody({ id: 'job_1', error: 'failed to push' })).toBe(false);
    expect(isErrorBody({ totals: {}, error: 'x' })).toBe(false);
    expect(isErrorBody(['error'])).toBe(false);
    expect(isErrorBody(null)).toBe(false);
  });
});

describe('checkBaseUrl', () => {
  it.each(['https://api.mintlify.com', 'http://127.0.0.1:8787', 'http://localhost:1', 'http://[::1]:9'])('accepts %s', (url) => {
    expect(() => checkBaseUrl(url)).not.toThrow();
  });
  it.each([
    ['http://api.mintlify.com', /plain http to 'api.mintlify.com'/],
    ['http://10.0.0.5:80', /plain http/],
    ['ftp://x', /expected an http/],
    ['not a url', /not a URL/],
    ['https://user:pw@host', /credentials/],
  ])('refuses %s', (url, message) => {
    expect(() => checkBaseUrl(url)).toThrow(UsageError);
    expect(() => checkBaseUrl(url)).toThrow(message);
  });
  it.each([
    // Not a URL (the port is out of range), with a proxy's user and password in it.
    ['http://proxyuser:hunter2pass@gateway.internal:99999/', "invalid --base-url 'http://***@gateway.internal:99999/': not a URL"],
    ['ftp://user:pw@host/x', "invalid --base-url 'host': credentials in the URL are not allowed"],
    // Another key pasted into the wrong variable, or beside the URL.
    ['mint_otherSecretKey987654321', "invalid --base-url '[a key?]': not a URL"],
    ['https://api.mintlify.com mint_0123456789abcdef', "invalid --base-url 'https://api.mintlify.com [a key?]': not a URL"],
    // A user and password without a scheme, or with characters a URL's would not hold.
    ['alice:s3cret@proxy.example.com:8080', "invalid --base-url '***@proxy.example.com:8080': expected an http(s) URL"],
    ['http://user:pa/ss@host', "invalid --base-url 'http://***@host': not a URL"],
    // An '@' that begins a path segment is no password's end.
    ['ftp://host/@team/', "invalid --base-url 'ftp://host/@team/': expected an http(s) URL"],
  ])('never shows what could be a secret: %s', (url, message) => {
    expect(() => checkBaseUrl(url)).toThrow(new UsageError(message));
  });
});

describe('RequestBudget under concurrency', () => {
  it('never hands the same free slot to two waiting callers', async () => {
    const clock = new ManualClock(NOW);
    const budget = new RequestBudget({
      scope: 's',
      perHour: 2,
      clock,
      maxWaitMs: Number.POSITIVE_INFINITY,
      history: { requestTimes: () => Promise.resolve([]) },
    });
    await Promise.all([budget.acquire(), budget.acquire(), budget.acquire()]);
    expect(clock.sleeps).toEqual([HOUR_MS + SLOT_MARGIN_MS]);
    expect(budget.requestsUsed).toBe(3);
  });

  /**
   * Two runs on one history (the request log) that read the hour at one moment, as two runs
   * woken for the same freed slot do: each read sees the log as it was when it started.
   */
  function sharedHistory(withLock: boolean) {
    const log: number[] = [];
    let locked: Promise<void> = Promise.resolve();
    let lockCalls = 0;
    const history = {
      log,
      lockCalls: () => lockCalls,
      requestTimes: async () => {
        const seen = [...log];
        await new Promise((resolve) => setTimeout(resolve, 5)); // the other run reads meanwhile
        return seen;
      },
      othersAtWork: () => true,
      ...(withLock
        ? {
            lockSlot: async () => {
              lockCalls++;
              const before = locked;
              let release!: () => void;
              locked = before.then(() => new Promise<void>((resolve) => (release = resolve)));
              await before;
              return () => release();
            },
          }
        : {}),
    };
    return history;
  }

  it('two runs reading the hour at one moment take its last slot once, under the history\'s lock', async () => {
    const clock = new ManualClock(NOW);
    const history = sharedHistory(true);
    for (let i = 0; i < 9; i++) history.log.push(NOW - 60_000 + i);
    const run = () => new RequestBudget({ scope: 's', perHour: 10, clock, maxWaitMs: 0, history });
    /** A request as the session makes it: the slot, its journal line, then the release. */
    const request = async (budget: RequestBudget): Promise<void> => {
      const release = await budget.acquire();
      history.log.push(clock.now());
      release();
    };
    const outcomes = await Promise.allSettled([request(run()), request(run())]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(history.log).toHaveLength(10);
  });

  it.each([
    ['stopped', () => vi.useFakeTimers({ toFake: ['performance'] }), () => vi.advanceTimersByTime(6_000)],
    ['suspended', () => vi.useFakeTimers({ toFake: ['Date'] }), () => vi.setSystemTime(Date.now() + 6_000)],
  ] as const)('a run %s between its read of the hour and its journal line takes its slot again, and finds the hour spent', async (_how, fake, sixSeconds) => {
    const clock = new ManualClock(NOW);
    const log = Array.from({ length: 9 }, (_, i) => NOW - 60_000 + i);
    /** A request's journal line, as the session writes it; a withdrawn one leaves the hour. */
    const journal = (): number => log.push(clock.now()) - 1;
    const withdraw = (at: number): void => void log.splice(at, 1);
    let bWent!: () => void;
    const bGone = new Promise<void>((resolve) => (bWent = resolve));
    let reads = 0;
    const history = {
      othersAtWork: () => true,
      lockSlot: () => Promise.resolve(() => undefined),
      // A's first read finds 9 of 10; A is stopped before its line goes in, and goes on once the other run has sent.
      requestTimes: async () => {
        const seen = [...log];
        if (reads++ === 0) {
          await bGone;
          sixSeconds();
        }
        return seen;
      },
    };
    fake();
    try {
      const a = new RequestBudget({ scope: 's', perHour: 10, clock, maxWaitMs: 0, history });
      const aTakes = takeSlot(a, journal, withdraw);
      // The other run waited 5 s for the slot's lock, went on without it, read 9 of 10 and sent.
      const b = new RequestBudget({ scope: 's', perHour: 10, clock, maxWaitMs: 0, history: { requestTimes: () => Promise.resolve([...log]) } });
      await takeSlot(b, journal, withdraw);
      bWent();
      await expect(aTakes).rejects.toThrow(BudgetExhaustedError);
      expect(log).toHaveLength(10);
      expect(a.requestsUsed).toBe(0);
      expect(reads).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('takes no lock with slots to spare and no other run at work (the common case costs nothing)', async () => {
    const clock = new ManualClock(NOW);
    const history = { ...sharedHistory(true), othersAtWork: () => false };
    const budget = new RequestBudget({ scope: 's', perHour: 10, clock, maxWaitMs: 0, history });
    const request = async (): Promise<void> => {
      const release = await budget.acquire();
      history.log.push(clock.now());
      release();
    };
    for (let i = 0; i < 8; i++) await request();
    expect(history.lockCalls()).toBe(0);
    // The last two slots of the hour are taken under it.
    for (let i = 0; i < 2; i++) await request();
    expect(history.lockCalls()).toBe(2);
    await expect(budget.acquire()).rejects.toThrow(BudgetExhaustedError);
  });
});
