import { describe, expect, it } from 'vitest';
import { AnalyticsData } from '../../src/sandbox/analytics-data.js';
import { DAY_MS, arrivedShare, dayOf } from '../../src/sandbox/data-clock.js';
import { computeDayCounts } from '../../src/sandbox/day-counts.js';
import { buildSiteModel } from '../../src/sandbox/site-model.js';
import { generateSitePaths } from '../../src/sandbox/site-paths.js';
import { createRng } from '../../src/sandbox/random.js';

const NOW = Date.UTC(2026, 2, 15, 12);
const TODAY = dayOf(NOW);

describe('site model', () => {
  it('generates distinct paths, landing pages first, even for large sites', () => {
    const paths = generateSitePaths(12_000, createRng(1)).map((p) => p.path);
    expect(new Set(paths).size).toBe(12_000);
    expect(paths.slice(0, 2)).toEqual(['/introduction', '/quickstart']);
  });

  it('computes a window\'s listing once and pages from it: again within the minute, or for good once the window is settled', () => {
    const data = new AnalyticsData(42, { paths: 200, minDailyVisitors: 0 });
    const settled = data.listing('visitors', 'acme', TODAY - 40, TODAY - 33, NOW);
    expect(data.listing('visitors', 'acme', TODAY - 40, TODAY - 33, NOW + 3_600_000)).toBe(settled);
    const today = data.listing('visitors', 'acme', TODAY, TODAY + 1, NOW);
    expect(data.listing('visitors', 'acme', TODAY, TODAY + 1, NOW + 1_000)).toBe(today);
    // Today's data moves: a minute later it is computed again.
    expect(data.listing('visitors', 'acme', TODAY, TODAY + 1, NOW + 60_000)).not.toBe(today);
  });

  it('reports exactly the day’s pool counts for a one-day window', () => {
    const shape = { paths: 200, minDailyVisitors: 0 };
    const model = buildSiteModel(42, 'acme', shape);
    const data = new AnalyticsData(42, shape);
    for (const day of [TODAY - 40, TODAY - 9, TODAY - 1, TODAY]) {
      const counts = computeDayCounts(model, day, arrivedShare(day, NOW));
      const rows = new Map(data.listing('visitors', 'acme', day, day + 1, NOW).rows.map((r) => [r.path, r]));
      model.paths.forEach((path, i) => {
        const h = counts.human[i] ?? 0;
        const a = counts.ai[i] ?? 0;
        const b = counts.both[i] ?? 0;
        const expected = h + a + b === 0 ? undefined : { path, human: h + b, ai: a + b, total: h + a + b };
        expect(rows.get(path), `${path} on day ${day}`).toEqual(expected);
      });
    }
  });

  it('keeps the uniques invariants for many windows, seeds and projects', () => {
    for (const seed of [1, 2, 3]) {
      const data = new AnalyticsData(seed, { paths: 150, minDailyVisitors: seed === 3 ? 2 : 0 });
      for (const [from, length] of [
        [TODAY - 100, 1],
        [TODAY - 60, 7],
        [TODAY - 45, 30],
        [TODAY - 400, 365],
        [TODAY - 3, 10],
      ] as const) {
        const project = `p${from % 5}`;
        const listing = data.listing('visitors', project, from, from + length, NOW);
        for (const c of [...listing.rows, listing.totals]) {
          expect(Number.isInteger(c.human) && Number.isInteger(c.ai) && Number.isInteger(c.total)).toBe(true);
          expect(c.total).toBeGreaterThanOrEqual(Math.max(c.human, c.ai));
          expect(c.total).toBeLessThanOrEqual(c.human + c.ai);
        }
        // Union over days: a window is never below any of its days.
        const lastDay = data.listing('visitors', project, from + length - 1, from + length, NOW);
        expect(listing.totals.total).toBeGreaterThanOrEqual(lastDay.totals.total);
      }
    }
  });
});

describe('arrivedShare', () => {
  it.each([
    ['a settled day', TODAY - 5, NOW, 1],
    ['tomorrow', TODAY + 1, NOW, 0],
    ['the start of today', TODAY, TODAY * DAY_MS, 0],
  ])('is %s', (_name, day, now, expected) => {
    expect(arrivedShare(day, now)).toBe(expected);
  });

  it('grows monotonically towards 1 as time passes', () => {
    let previous = 0;
    for (let now = TODAY * DAY_MS; now < (TODAY + 5) * DAY_MS; now += 3_600_000) {
      const share = arrivedShare(TODAY, now);
      expect(share).toBeGreaterThanOrEqual(previous);
      expect(share).toBeLessThanOrEqual(1);
      previous = share;
    }
    expect(previous).toBe(1);
    expect(arrivedShare(TODAY - 1, NOW)).toBeLessThan(1);
    expect(arrivedShare(TODAY - 1, NOW)).toBeGreaterThan(0.9);
  });
});
