import { describe, expect, it } from 'vitest';
import type { AnalyticsPage, ApiRow } from '../../src/api/schemas.js';
import { DataError } from '../../src/core/errors.js';
import { nextOffset, walkWindow, type PageFetcher } from '../../src/extract/page-walker.js';
import { decideWindow, isSettled, planExport } from '../../src/extract/plan-export.js';
import { checkCounts, summariseFlags } from '../../src/extract/row-quality.js';
import { planClosedWindows, windowKey } from '../../src/extract/windows.js';
import { checkPipelineConfig } from '../../src/extract/pipeline-config.js';

const totals = { human: 10, ai: 5, total: 12 };
const rows = (n: number, prefix = '/p'): ApiRow[] =>
  Array.from({ length: n }, (_, i) => ({ path: `${prefix}${i}`, human: 2, ai: 1, total: 3 }));

/** A fetcher over a fixed listing that serves pages of `limit` and records offsets. */
function listing(all: ApiRow[], limit = 250, t = totals): PageFetcher & { offsets: number[] } {
  const offsets: number[] = [];
  const fetcher = (offset: number): Promise<AnalyticsPage> => {
    offsets.push(offset);
    return Promise.resolve({ totals: t, rows: all.slice(offset, offset + limit), hasMore: offset + limit < all.length });
  };
  return Object.assign(fetcher, { offsets });
}

describe('walkWindow', () => {
  it.each([
    [0, 1, [0]],
    [1, 1, [0]],
    [250, 1, [0]],
    [251, 2, [0, 250]],
    [500, 2, [0, 250]],
    [501, 3, [0, 250, 500]],
  ])('%i rows take %i pages', async (n, pages, offsets) => {
    const fetch = listing(rows(n));
    const result = await walkWindow(fetch);
    expect(result.rows).toHaveLength(n);
    expect(new Set(result.rows.map((r) => r.path)).size).toBe(n);
    expect(result.pages).toBe(pages);
    expect(fetch.offsets).toEqual(offsets);
    expect(result.warnings).toEqual([]);
  });

  it('advances by rows received when the server returns short pages', async () => {
    const all = rows(300);
    const offsets: number[] = [];
    const result = await walkWindow((offset) => {
      offsets.push(offset);
      return Promise.resolve({ totals, rows: all.slice(offset, offset + 100), hasMore: offset + 100 < all.length });
    });
    expect(offsets).toEqual([0, 100, 200]);
    expect(result.rows).toHaveLength(300);
  });

  it('re-walks after a repeated path and succeeds when the data settles', async () => {
    let walk = 0;
    const all = rows(400);
    const result = await walkWindow((offset) => {
      if (offset === 0) walk++;
      // First walk: the second page starts one row early (a row was inserted at the head).
      const start = walk === 1 && offset > 0 ? offset - 1 : offset;
      return Promise.resolve({ totals, rows: all.slice(start, start + 250), hasMore: start + 250 < all.length });
    });
    expect(result.walks).toBe(2);
    expect(result.rows).toHaveLength(400);
    expect(result.warnings).toEqual([]);
    expect(result.pages).toBe(4);
  });

  it('loads with a warning after 3 re-walks of changing totals', async () => {
    let n = 0;
    const all = rows(300);
    const result = await walkWindow((offset) => {
      n++;
      return Promise.resolve({ totals: { ...totals, human: totals.human + n }, rows: all.slice(offset, offset + 250), hasMore: offset + 250 < all.length });
    });
    expect(result.walks).toBe(4);
    expect(result.rows).toHaveLength(300);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(/drifted during 4 walks.*totals changed at offset 250/);
  });

  it('treats an empty page with hasMore as drift and does not loop', async () => {
    const fetched: number[] = [];
    const result = await walkWindow((offset) => {
      fetched.push(offset);
      return Promise.resolve({ totals, rows: offset === 0 ? rows(250) : [], hasMore: true });
    });
    expect(result.walks).toBe(4);
    expect(fetched).toHaveLength(8);
    expect(result.warnings[0]).toMatch(/empty page with hasMore at offset 250/);
  });

  it('stops runaway paging', async () => {
    let i = 0;
    const walk = walkWindow(() => Promise.resolve({ totals, rows: rows(1, `/r${i++}-`), hasMore: true }), { maxPages: 50 });
    await expect(walk).rejects.toThrow(DataError);
    await expect(walkWindow(() => Promise.resolve({ totals, rows: rows(1, `/s${i++}-`), hasMore: true }), { maxPages: 50 })).rejects.toThrow(/runaway paging/);
  });

  it('nextOffset stops on hasMore=false', () => {
    expect(nextOffset(0, { totals, rows: rows(250), hasMore: false })).toBeNull();
    expect(nextOffset(250, { totals, rows: rows(10), hasMore: true })).toBe(260);
  });
});

describe('checkCounts', () => {
  it.each([
    [{ human: 3, ai: 2, total: 4 }, null],
    [{ human: 3, ai: 0, total: 3 }, null],
    [{ human: 3, ai: 2, total: 5 }, null],
    [{ human: 3, ai: 2, total: 2 }, 'total_out_of_bounds'],
    [{ human: 3, ai: 2, total: 6 }, 'total_out_of_bounds'],
    [{ human: 3.4, ai: 2, total: 4 }, 'non_integral'],
    [{ human: -1, ai: 2, total: 2 }, 'negative,total_out_of_bounds'],
  ])('%j -> %s', (counts, flags) => {
    const checked = checkCounts(counts);
    expect(checked.flags).toBe(flags);
    expect(Number.isInteger(checked.human)).toBe(true);
  });
  it('summarises flags into window warnings', () => {
    const rowsWithFlags = [{ flags: 'total_out_of_bounds' }, { flags: null }, { flags: 'non_integral,total_out_of_bounds' }];
    expect(summariseFlags(rowsWithFlags, { flags: null })).toEqual(['2 rows total_out_of_bounds', '1 row non_integral']);
  });
});

describe('planExport', () => {
  const w = { start: '2026-11-10', end: '2026-11-11' };
  const now = Date.parse('2026-11-22T03:00:00Z');
  it('fetches new windows and skips settled ones', () => {
    const loaded = new Map([[windowKey(w), { ...w, fetchedAt: Date.parse('2026-11-13T00:00:00Z') }]]);
    const other = { start: '2026-11-11', end: '2026-11-12' };
    expect(planExport({ windows: [w, other], loaded, now })).toEqual([
      { window: w, action: 'skip', reason: 'settled' },
      { window: other, action: 'fetch', reason: 'new' },
    ]);
  });
  it('re-fetches an unsettled window once per UTC day', () => {
    const fetched = (iso: string) => new Map([[windowKey(w), { ...w, fetchedAt: Date.parse(iso) }]]);
    expect(decideWindow({ loaded: fetched('2026-11-12T23:00:00Z'), now }, w)).toMatchObject({ action: 'fetch', reason: 'unsettled' });
    expect(decideWindow({ loaded: fetched('2026-11-12T23:00:00Z'), now: Date.parse('2026-11-12T23:30:00Z') }, w)).toMatchObject({ action: 'skip', reason: 'fetched-today' });
    expect(decideWindow({ loaded: fetched('2026-11-13T00:00:00Z'), now, refresh: true }, w)).toMatchObject({ action: 'fetch', reason: 'refresh' });
  });
  it('settles exactly lookbackDays after the window ends', () => {
    expect(isSettled(w, Date.parse('2026-11-12T23:59:59Z'), 2)).toBe(false);
    expect(isSettled(w, Date.parse('2026-11-13T00:00:00Z'), 2)).toBe(true);
    expect(isSettled(w, Date.parse('2026-11-11T00:00:00Z'), 0)).toBe(true);
  });
});

describe('planClosedWindows', () => {
  const now = Date.parse('2026-11-22T10:00:00Z'); // a Sunday
  it('ends days at today (exclusive), so today is never loaded', () => {
    const windows = planClosedWindows('2026-11-19', 'day', now);
    expect(windows.map((x) => x.start)).toEqual(['2026-11-19', '2026-11-20', '2026-11-21']);
    expect(windows.at(-1)?.end).toBe('2026-11-22');
  });
  it('ends weeks and months at the last boundary', () => {
    expect(planClosedWindows('2026-11-02', 'week', now).at(-1)).toEqual({ start: '2026-11-09', end: '2026-11-16' });
    expect(planClosedWindows('2026-09-01', 'month', now).at(-1)).toEqual({ start: '2026-10-01', end: '2026-11-01' });
    expect(planClosedWindows('2026-11-22', 'day', now)).toEqual([]);
  });
});

describe('checkPipelineConfig', () => {
  it('normalises a good file and applies defaults', () => {
    const check = checkPipelineConfig({ projects: ['a', 'a'], start: '2026-01-01' });
    expect(check.errors).toEqual([]);
    expect(check.config).toMatchObject({ projects: ['a'], metrics: ['visitors', 'views'], window: 'day', lookbackDays: 2, requestsPerHour: 100 });
    expect(check.warnings).toEqual(['projects: duplicates ignored']);
  });
  it('reports every problem at once', () => {
    const check = checkPipelineConfig({ projects: ['a'], start: '2026-01-07', window: 'week', metrics: ['visitors'] });
    expect(check.config).toBeUndefined();
    expect(check.errors).toEqual(['start: 2026-01-07 is not a Monday (week windows start on Monday)']);
    const bad = checkPipelineConfig({ projects: [], start: 'x', extra: 1 });
    expect(bad.errors.length).toBeGreaterThanOrEqual(2);
  });
});
