/** The pure planners behind budget-bound operation: ordering, alignment, breaker, waits. */
import { describe, expect, it } from 'vitest';
import { FailureBreaker, isFailedAttempt } from '../../src/api/failure-breaker.js';
import { backoffDelay } from '../../src/api/retry-policy.js';
import { RequestBudget, SLOT_MARGIN_MS, planRequestSlot } from '../../src/api/request-budget.js';
import { ManualClock } from '../../src/core/clock.js';
import { estimateRemainingMs } from '../../src/cli/output/progress.js';
import { formatDuration, parseDuration } from '../../src/core/duration.js';
import { ApiFailingError, UsageError } from '../../src/core/errors.js';
import { WalkProgress } from '../../src/extract/page-walker.js';
import { orderFetches } from '../../src/extract/plan-export.js';
import { checkPipelineConfig, planSyncSeries } from '../../src/extract/pipeline-config.js';
import { alignUp, checkNotFuture, planWindows, type Grain } from '../../src/extract/windows.js';

describe('orderFetches', () => {
  const item = (grain: Grain, start: string, end: string) => ({ grain, window: { start, end } });
  it('takes one grain newest first', () => {
    const days = [item('day', '2026-03-01', '2026-03-02'), item('day', '2026-03-03', '2026-03-04'), item('day', '2026-03-02', '2026-03-03')];
    expect(orderFetches(days).map((d) => d.window.start)).toEqual(['2026-03-03', '2026-03-02', '2026-03-01']);
  });
  it('lets grains take turns, coarsest first, each newest first', () => {
    const items = [
      item('day', '2026-03-08', '2026-03-09'),
      item('day', '2026-03-09', '2026-03-10'),
      item('week', '2026-02-23', '2026-03-02'),
      item('week', '2026-03-02', '2026-03-09'),
      item('month', '2026-02-01', '2026-03-01'),
      item('day', '2026-03-07', '2026-03-08'),
    ];
    expect(orderFetches(items).map((i) => `${i.grain} ${i.window.start}`)).toEqual([
      'month 2026-02-01',
      'week 2026-03-02',
      'day 2026-03-09',
      'week 2026-02-23',
      'day 2026-03-08',
      'day 2026-03-07',
    ]);
  });
  it('keeps every item exactly once', () => {
    const items = Array.from({ length: 50 }, (_, i) => item((['day', 'week', 'month'] as const)[i % 3]!, `2026-01-${String((i % 28) + 1).padStart(2, '0')}`, 'x'));
    expect(orderFetches(items)).toHaveLength(50);
    expect(new Set(orderFetches(items))).toEqual(new Set(items));
  });
});

describe('window plans that cost nothing useless', () => {
  it('aligns a grain start up to its boundary', () => {
    expect(alignUp('2026-02-01', 'week')).toBe('2026-02-02'); // a Sunday: the next Monday
    expect(alignUp('2026-02-02', 'week')).toBe('2026-02-02');
    expect(alignUp('2026-02-02', 'month')).toBe('2026-03-01');
    expect(alignUp('2026-02-01', 'month')).toBe('2026-02-01');
    expect(alignUp('2026-02-05', 'day')).toBe('2026-02-05');
  });
  it('refuses windows that start after today, not those that start today', () => {
    const now = Date.parse('2026-03-10T12:00:00Z');
    expect(() => checkNotFuture(planWindows('2026-03-01', '2026-04-01', 'month'), now, '2026-04-01')).not.toThrow();
    expect(() => checkNotFuture(planWindows('2026-03-09', '2026-03-11', 'day'), now, '2026-03-11')).not.toThrow();
    expect(() => checkNotFuture(planWindows('2026-03-09', '2026-03-12', 'day'), now, '2026-03-12')).toThrow(UsageError);
    expect(() => checkNotFuture(planWindows('2026-04-01', '2026-05-01', 'month'), now, '2026-05-01')).toThrow(
      /1 window would start after today and have no data$/,
    );
  });
  it('refuses a range window that ends after tomorrow (it would be re-fetched daily until then)', () => {
    const now = Date.parse('2026-03-10T12:00:00Z');
    expect(() => checkNotFuture(planWindows('2026-03-01', '2026-03-11', 'range'), now, '2026-03-11', 'range')).not.toThrow();
    expect(() => checkNotFuture(planWindows('2026-03-01', '2030-01-01', 'range'), now, '2030-01-01', 'range')).toThrow(
      '--to 2030-01-01 is past tomorrow (2026-03-11, UTC): a range window ends tomorrow at the latest, as the days after it have no data yet; use --to 2026-03-11',
    );
    // A month or a week may end after tomorrow: it is today's.
    expect(() => checkNotFuture(planWindows('2026-03-01', '2026-04-01', 'month'), now, '2026-04-01', 'month')).not.toThrow();
  });
  it('refuses a mistyped year: --from before 2000, a sync start more than a year ahead', () => {
    expect(() => planWindows('0026-11-01', '0026-11-04', 'day')).toThrow('--from 0026-11-01 is before 2000: check the year');
    const now = Date.parse('2026-11-24T12:00:00Z');
    const { config } = checkPipelineConfig({ projects: ['a'], start: '2062-01-01', metrics: ['visitors'] });
    expect(() => planSyncSeries(config!, ['a'], now)).toThrow('start: 2062-01-01 is more than a year after today (2026-11-24, UTC): check the year');
    const soon = checkPipelineConfig({ projects: ['a'], start: '2026-12-01', metrics: ['visitors'] }).config!;
    expect(planSyncSeries(soon, ['a'], now)).toEqual([{ metric: 'visitors', projectId: 'a', grain: 'day', windows: [] }]);
  });
  it('refuses a range of more than ten years before planning it', () => {
    expect(planWindows('2016-03-01', '2026-03-01', 'day')).toHaveLength(3652);
    const started = performance.now();
    expect(() => planWindows('2001-01-01', '9999-01-01', 'day')).toThrow(/spans more than ten years/);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('FailureBreaker', () => {
  it('counts 5xx, 429 and no response as failures; anything else closes it', () => {
    expect([0, 429, 500, 502, 503, 504].map(isFailedAttempt)).toEqual([true, true, true, true, true, true]);
    expect([200, 201, 400, 401, 404].map(isFailedAttempt)).toEqual([false, false, false, false, false]);
  });
  it('opens after `limit` failures in a row and says why', () => {
    const breaker = new FailureBreaker(3);
    for (const status of [500, 0, 200, 503, 503]) breaker.record(status);
    expect(() => breaker.check()).not.toThrow();
    breaker.record(0);
    expect(breaker.consecutiveFailures).toBe(3);
    expect(() => breaker.check()).toThrow(ApiFailingError);
    expect(() => breaker.check()).toThrow('the API failed 3 requests in a row (last: no response (timeout or connection error))');
    breaker.record(404);
    expect(() => breaker.check()).not.toThrow();
  });
});

describe('request slots', () => {
  it('takes a fractional hourly budget as its whole part', () => {
    const now = 10 * 3_600_000;
    expect(planRequestSlot([now - 1000], now, 2.5)).toBe(0);
    expect(planRequestSlot([now - 1000, now - 500], now, 2.5)).toBe(3_600_000 - 1000);
  });
  it('keeps the budget exact over a long run, in order, as planRequestSlot says', async () => {
    const clock = new ManualClock(0);
    const budget = new RequestBudget({ scope: 's', perHour: 3, clock, maxWaitMs: Number.POSITIVE_INFINITY });
    const starts: number[] = [];
    for (let i = 0; i < 10; i++) {
      await budget.acquire();
      starts.push(clock.now());
      clock.advance(60_000);
    }
    // Three an hour: each fourth request waits for the first of the three before it to age
    // out, and the margin (a server may have stamped it later).
    starts.forEach((t) => expect(starts.filter((u) => u > t - 3_600_000 - SLOT_MARGIN_MS && u <= t).length).toBeLessThanOrEqual(3));
    expect(starts.slice(0, 4)).toEqual([0, 60_000, 120_000, 3_600_000 + SLOT_MARGIN_MS]);
  });
});

describe('backoffDelay', () => {
  it('doubles from the minimum up to the cap, spread by jitter over [0.5, 1.5)', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((r) => backoffDelay(r, 1_000, 30_000, 0.5))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect(backoffDelay(2, 1_000, 30_000, 0)).toBe(2000);
    expect(backoffDelay(2, 1_000, 30_000, 0.999)).toBe(5996);
  });
});

describe('durations', () => {
  it('parses what people type, and names a bad value', () => {
    expect(['90', '90s', '45m', '6h', '2d', '1.5h'].map((t) => parseDuration(t, '--max-wait'))).toEqual([
      90_000, 90_000, 2_700_000, 21_600_000, 172_800_000, 5_400_000,
    ]);
    for (const bad of ['', 'soon', '0', '-5m', '5 weeks']) expect(() => parseDuration(bad, '--max-wait')).toThrow(`invalid --max-wait '${bad}'`);
  });
  it('formats a wait for people', () => {
    expect([5_000, 90_000, 3_600_000, 3_900_000].map(formatDuration)).toEqual(['5 s', '2 min', '1 h', '1 h 5 min']);
  });
  it('estimates the time left from the requests windows took so far', () => {
    expect(estimateRemainingMs(0, 10, 0, 100)).toBeUndefined();
    expect(estimateRemainingMs(5, 10, 100, 100)).toBe(3_600_000); // 5 windows x 20 requests at 100/h
    expect(estimateRemainingMs(5, 10, 100, Number.POSITIVE_INFINITY)).toBeUndefined();
  });
});

describe('WalkProgress.repeatsEarlierPage', () => {
  const page = (paths: string[]) => ({
    totals: { human: 1, ai: 1, total: 1 },
    rows: paths.map((path) => ({ path, human: 1, ai: 0, total: 1 })),
    hasMore: true,
  });
  it('sees a page served twice, but not rows that moved across a page boundary', () => {
    const progress = new WalkProgress();
    progress.accept(page(['/a', '/b', '/c']));
    expect(progress.repeatsEarlierPage(page(['/a', '/b', '/c']))).toBe(true);
    expect(progress.repeatsEarlierPage(page(['/c', '/d', '/e']))).toBe(false); // drift: one row again
    expect(progress.repeatsEarlierPage(page([]))).toBe(false);
  });
});
