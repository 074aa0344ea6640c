import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReceivedPage } from '../../src/api/analytics.js';
import type { ApiRow, Counts } from '../../src/core/domain.js';
import { BudgetExhaustedError, DataError } from '../../src/core/errors.js';
import { nextOffset, walkWindow, WalkProgress, type PageFetcher } from '../../src/extract/page-walker.js';
import { Spool, type SpoolWalk } from '../../src/spool/spool.js';

const totals = { human: 10, ai: 5, total: 12 };
const window = { start: '2026-03-01', end: '2026-03-02' };
const rows = (n: number, prefix = '/p'): ApiRow[] =>
  Array.from({ length: n }, (_, i) => ({ path: `${prefix}${i}`, human: 2, ai: 1, total: 3 }));

function received(t: Counts, pageRows: ApiRow[], hasMore: boolean): Promise<ReceivedPage> {
  const page = { totals: t, rows: pageRows, hasMore };
  return Promise.resolve({ page, body: JSON.stringify({ totals: t, visitors: pageRows, hasMore }) });
}

/** A fetcher over a fixed listing that serves pages of `limit` and records offsets. */
function listing(all: ApiRow[], limit = 250, t: Counts = totals): PageFetcher & { offsets: number[] } {
  const offsets: number[] = [];
  const fetcher = (offset: number): Promise<ReceivedPage> => {
    offsets.push(offset);
    return received(t, all.slice(offset, offset + limit), offset + limit < all.length);
  };
  return Object.assign(fetcher, { offsets });
}

describe('walkWindow', () => {
  let dir: string;
  let sink: SpoolWalk;
  let spent: number;
  const context = () => ({
    metric: 'visitors' as const,
    projectId: 'docs',
    window,
    runId: 'run-1',
    now: () => Date.parse('2026-03-05T00:00:00Z'),
    requestsSpent: () => spent,
  });
  const walk = (fetch: (offset: number) => Promise<ReceivedPage>, options = {}) =>
    walkWindow(
      (offset: number) => {
        spent++;
        return fetch(offset);
      },
      sink,
      context(),
      options,
    );
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-walk-'));
    sink = new Spool(dir).walk({ metric: 'visitors', projectId: 'docs' }, window);
    spent = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    [0, 1, [0]],
    [1, 1, [0]],
    [250, 1, [0]],
    [251, 2, [0, 250]],
    [500, 2, [0, 250]],
    [501, 3, [0, 250, 500]],
  ])('%i rows take %i pages, each spooled as received', async (n, pages, offsets) => {
    const fetch = listing(rows(n));
    const result = await walk(fetch);
    expect(result.rows).toBe(n);
    expect(result.pages).toBe(pages);
    expect(result.requests).toBe(pages);
    expect(fetch.offsets).toEqual(offsets);
    expect(result.warnings).toEqual([]);
    const spooled = sink.pages();
    expect(spooled.map((p) => p.index)).toEqual(offsets.map((_, i) => i));
    const paths = spooled.flatMap((p) => (p.body as { visitors: ApiRow[] }).visitors.map((r) => r.path));
    expect(paths).toEqual(rows(n).map((r) => r.path));
    expect(sink.completed()).toEqual(result);
  });

  it('advances by rows received when the server returns short pages', async () => {
    const fetch = listing(rows(300), 100);
    const result = await walk(fetch);
    expect(fetch.offsets).toEqual([0, 100, 200]);
    expect(result.rows).toBe(300);
  });

  it('spools a body with line breaks compactly, one line a page', async () => {
    const all = rows(300);
    const result = await walk((offset) => {
      const page = { totals, rows: all.slice(offset, offset + 250), hasMore: offset === 0 };
      return Promise.resolve({ page, body: JSON.stringify({ totals, visitors: page.rows, hasMore: page.hasMore }, null, 2) });
    });
    expect(result.rows).toBe(300);
    // The walk line, one line a page, the done line.
    expect(readFileSync(sink.pagesFile, 'utf8').trim().split('\n')).toHaveLength(4);
    expect(sink.pages().map((p) => (p.body as { visitors: unknown[] }).visitors.length)).toEqual([250, 50]);
  });

  it('writes each page before asking for the next', async () => {
    const all = rows(600);
    const seenOnDisk: number[] = [];
    await walk((offset) => {
      seenOnDisk.push(sink.pages().length);
      return received(totals, all.slice(offset, offset + 250), offset + 250 < all.length);
    });
    expect(seenOnDisk).toEqual([0, 1, 2]);
  });

  it('resumes a walk an earlier run left in the spool at its next offset', async () => {
    const all = rows(800);
    let calls = 0;
    const failing = (offset: number): Promise<ReceivedPage> => {
      if (++calls === 3) return Promise.reject(new BudgetExhaustedError('spent'));
      return received(totals, all.slice(offset, offset + 250), offset + 250 < all.length);
    };
    await expect(walk(failing)).rejects.toThrow(BudgetExhaustedError);
    expect(sink.pages()).toHaveLength(2);
    expect(sink.completed()).toBeNull();

    const fetch = listing(all);
    const result = await walk(fetch);
    expect(fetch.offsets).toEqual([500, 750]);
    expect(result).toMatchObject({ rows: 800, pages: 4, walks: 1, warnings: [] });
    expect(sink.pages()).toHaveLength(4);
  });

  it('restarts a resumed walk whose next page shows other totals', async () => {
    const all = rows(600);
    let calls = 0;
    await expect(
      walk((offset) => (++calls === 2 ? Promise.reject(new BudgetExhaustedError('spent')) : received(totals, all.slice(offset, offset + 250), true))),
    ).rejects.toThrow(BudgetExhaustedError);
    const moved = listing(all, 250, { ...totals, human: 11 });
    const result = await walk(moved);
    expect(moved.offsets).toEqual([250, 0, 250, 500]);
    expect(result).toMatchObject({ rows: 600, walks: 2, warnings: [] });
    const first = sink.pages()[0]!.body as { totals: Counts };
    expect(first.totals.human).toBe(11);
  });

  it('restarts a resumed walk whose data moved even if the run that left it used every re-walk', async () => {
    // An earlier run's last re-walk (walk 4 of 3 re-walks), one page in, when its budget ran out.
    sink.claim();
    sink.begin({ walk: 4, startedAt: Date.parse('2026-03-04T00:00:00Z'), pagesBefore: 9, requestsBefore: 9 });
    const all = rows(600);
    sink.writePage(0, (await received(totals, all.slice(0, 250), true)).body);
    sink.release();
    const moved = listing(all, 250, { ...totals, human: 11 });
    const result = await walk(moved);
    // Today's data throughout: the walk starts over, it does not go on after yesterday's page.
    expect(moved.offsets).toEqual([250, 0, 250, 500]);
    expect(result).toMatchObject({ rows: 600, walks: 5, warnings: [], repeatedPaths: false });
    expect(sink.pages().map((p) => (p.body as { totals: Counts }).totals.human)).toEqual([11, 11, 11]);
  });

  it('finishes a resumed walk that an earlier run kept with its drift after its last re-walk, and says so', async () => {
    // Walk 4 of 3 re-walks took a page that repeats a path of the page before it (drift the
    // re-walks could not outrun: a path the API really lists twice), then the budget ran out.
    // Starting it over would meet the same drift, every run, and never finish a long window.
    sink.claim();
    sink.begin({ walk: 4, startedAt: Date.parse('2026-03-04T00:00:00Z'), pagesBefore: 9, requestsBefore: 9 });
    const all = rows(600);
    sink.writePage(0, (await received(totals, all.slice(0, 250), true)).body);
    sink.writePage(1, (await received(totals, all.slice(200, 450), true)).body);
    sink.release();
    const fetch = listing(all);
    const result = await walk(fetch);
    expect(fetch.offsets).toEqual([500]);
    expect(result).toMatchObject({ walks: 4, repeatedPaths: true, warnings: ['data drifted during 4 walks; loaded the last walk: path /p200 repeated at offset 250'] });
  });

  it('keeps no page of a walk stopped because the API ignores its offset, serving rows already seen page after page: the next run walks the window from the start', async () => {
    const all = rows(600);
    let page = 0;
    // Its listing again in another order each time: drift, which no re-walk is left for.
    const ignoring = (): Promise<ReceivedPage> => {
      const at = page++;
      return received(totals, [...all.slice(at, 250), ...all.slice(0, at)], true);
    };
    await expect(walk(ignoring, { maxRewalks: 0 })).rejects.toThrow(/the API ignores offset: 3 pages in a row/);
    expect(sink.pages()).toEqual([]);
    const fetch = listing(all);
    const result = await walk(fetch);
    expect(fetch.offsets).toEqual([0, 250, 500]);
    expect(result).toMatchObject({ rows: 600, warnings: [], repeatedPaths: false });
  });

  it('keeps the clean pages of a walk stopped because the API served a page again row for row', async () => {
    const all = rows(600);
    await expect(walk(() => received(totals, all.slice(0, 250), true))).rejects.toThrow(/the API ignores offset: the page at offset 250/);
    expect(sink.pages()).toHaveLength(1);
    const fetch = listing(all);
    expect(await walk(fetch)).toMatchObject({ rows: 600, warnings: [] });
    expect(fetch.offsets).toEqual([250, 500]);
  });

  it('dates a resumed walk that holds no page by its first page, not by the run that began it', async () => {
    sink.claim();
    sink.begin({ walk: 2, startedAt: Date.parse('2026-03-01T00:00:00Z'), pagesBefore: 3, requestsBefore: 4 });
    sink.release();
    const result = await walk(listing(rows(300)));
    expect(result).toMatchObject({ fetchedAt: Date.parse('2026-03-05T00:00:00Z'), walks: 2, pages: 5, requests: 6, rows: 300 });
  });

  it('drops a torn spooled page and every later one, and fetches them again', async () => {
    const all = rows(800);
    let calls = 0;
    await expect(
      walk((offset) => (++calls === 4 ? Promise.reject(new BudgetExhaustedError('spent')) : received(totals, all.slice(offset, offset + 250), true))),
    ).rejects.toThrow(BudgetExhaustedError);
    // The second page torn by a power cut, the third whole (the first line is the walk's).
    const lines = readFileSync(sink.pagesFile, 'utf8').split('\n');
    expect(lines[0]).toMatch(/^\{"walk":/);
    writeFileSync(sink.pagesFile, `${lines[0]}\n${lines[1]}\n${lines[2]!.slice(0, 40)}\n${lines[3]}\n`);
    const fetch = listing(all);
    const result = await walk(fetch);
    expect(fetch.offsets).toEqual([250, 500, 750]);
    expect(result.rows).toBe(800);
  });

  it('re-walks after a repeated path and succeeds when the data settles', async () => {
    let walkNo = 0;
    const all = rows(400);
    const result = await walk((offset) => {
      if (offset === 0) walkNo++;
      // First walk: the second page starts one row early (a row was inserted at the head).
      const start = walkNo === 1 && offset > 0 ? offset - 1 : offset;
      return received(totals, all.slice(start, start + 250), start + 250 < all.length);
    });
    expect(result).toMatchObject({ walks: 2, rows: 400, warnings: [], pages: 4, repeatedPaths: false });
    expect(sink.pages()).toHaveLength(2); // only the final walk's pages are kept
  });

  it('loads with a warning after 3 re-walks of changing totals', async () => {
    let n = 0;
    const all = rows(300);
    const result = await walk((offset) => {
      n++;
      return received({ ...totals, human: totals.human + n }, all.slice(offset, offset + 250), offset + 250 < all.length);
    });
    expect(result.walks).toBe(4);
    expect(result.rows).toBe(300);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(/drifted during 4 walks.*totals changed at offset 250/);
  });

  it('keeps the last walk with its repeated paths marked for the loader', async () => {
    const all = rows(300);
    const result = await walk((offset) => received(totals, all.slice(Math.max(0, offset - 10), offset + 240), offset + 240 < all.length));
    expect(result.walks).toBe(4);
    expect(result.repeatedPaths).toBe(true);
    expect(result.rows).toBe(300);
    expect(result.warnings[0]).toMatch(/repeated at offset 240/);
  });

  it('treats an empty page with hasMore as drift and does not loop', async () => {
    const fetched: number[] = [];
    const result = await walk((offset) => {
      fetched.push(offset);
      return received(totals, offset === 0 ? rows(250) : [], true);
    });
    expect(result.walks).toBe(4);
    expect(fetched).toHaveLength(8);
    expect(result.warnings[0]).toMatch(/empty page with hasMore at offset 250/);
  });

  it('stops runaway paging', async () => {
    let i = 0;
    await expect(walk(() => received(totals, rows(1, `/r${i++}-`), true), { maxPages: 50 })).rejects.toThrow(DataError);
    sink.remove();
    await expect(walk(() => received(totals, rows(1, `/s${i++}-`), true), { maxPages: 50 })).rejects.toThrow(/runaway paging/);
  });

  it('nextOffset stops on hasMore=false', () => {
    expect(nextOffset(0, { totals, rows: rows(250), hasMore: false })).toBeNull();
    expect(nextOffset(250, { totals, rows: rows(10), hasMore: true })).toBe(260);
  });

  it('WalkProgress reports drift without taking the page', () => {
    const progress = new WalkProgress();
    progress.accept({ totals, rows: rows(2), hasMore: true });
    expect(progress.driftOf({ totals, rows: rows(1), hasMore: true })).toEqual(['path /p0 repeated at offset 2']);
    expect(progress.driftOf({ totals: { ...totals, ai: 0 }, rows: rows(1, '/q'), hasMore: false })).toEqual(['totals changed at offset 2']);
    expect(progress).toMatchObject({ offset: 2, pages: 1, rows: 2 });
  });
});
