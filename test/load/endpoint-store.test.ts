/** Loading the other endpoints from spooled pages into a real DuckDB file. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Metric, Window } from '../../src/core/domain.js';
import { Database } from '../../src/load/database.js';
import { loadWindows, type WindowLoad } from '../../src/load/window-store.js';
import { conversationThreadSql } from '../../src/load/endpoint-store.js';
import { planThreads } from '../../src/extract/run-threads.js';
import { Spool } from '../../src/spool/spool.js';
import { parseEndpointPage } from '../../src/api/endpoints.js';

const day = (start: string, end: string): Window => ({ start, end });

describe('loading searches, feedback and assistant windows', () => {
  let dir: string;
  let spool: Spool;
  let db: Database;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-endpoint-load-'));
    spool = new Spool(join(dir, 'spool'));
    db = await Database.open(join(dir, 'test.duckdb'));
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function spooled(metric: Metric, window: Window, bodies: unknown[], totals: Record<string, number> = {}, runId = 'run-1'): WindowLoad {
    const walk = spool.walk({ metric, projectId: 'proj' }, window);
    walk.begin({ walk: 1, startedAt: 0, pagesBefore: 0, requestsBefore: 0 });
    bodies.forEach((body, i) => walk.writePage(i, JSON.stringify(body)));
    walk.close();
    return {
      file: walk.pagesFile,
      walk: { metric, projectId: 'proj', window, fetchedAt: Date.parse(`${window.end}T06:00:00Z`), runId, totals, rows: 0, pages: bodies.length, requests: bodies.length, walks: 1, warnings: [], repeatedPaths: false },
    };
  }

  const search = (searchQuery: string, hits: number, ctr = 0.5) => ({ searchQuery, hits, ctr, topClickedPage: ctr > 0 ? '/a' : null, lastSearchedAt: '2026-03-02T10:00:00Z' });

  it('searches: rows and totals per window; a non-integral count is kept rounded and warned about', async () => {
    const load = spooled('searches', day('2026-03-02', '2026-03-03'), [
      { searches: [search('api key', 10), search('sso', 2.5, 0)], totalSearches: 12.5, nextCursor: 'x' },
      { searches: [search('webhooks', 1)], totalSearches: 12.5, nextCursor: null },
    ], { totalSearches: 12.5 });
    const warnings = await db.transaction((tx) => loadWindows(tx, [load]));
    expect(warnings.get(load.walk)).toEqual(['1 row non_integral (stored rounded)', 'totals non_integral (stored rounded): totalSearches 12.5']);
    expect(await db.all(`SELECT search_query, hits, ctr, top_clicked_page FROM searches ORDER BY hits DESC`)).toEqual([
      { search_query: 'api key', hits: 10n, ctr: 0.5, top_clicked_page: '/a' },
      { search_query: 'sso', hits: 3n, ctr: 0, top_clicked_page: null },
      { search_query: 'webhooks', hits: 1n, ctr: 0.5, top_clicked_page: '/a' },
    ]);
    expect(await db.all(`SELECT total_searches FROM search_totals`)).toEqual([{ total_searches: 13n }]);
    const [bookkeeping] = await db.all<{ metric: string; warnings: string[] }>(`SELECT metric, warnings FROM loaded_windows`);
    expect(bookkeeping).toEqual({ metric: 'searches', warnings: warnings.get(load.walk) });
  });

  it('searches: a window whose queries\' hits do not add up to totalSearches is warned of; one that adds up is not', async () => {
    const short = spooled('searches', day('2026-03-02', '2026-03-03'), [
      { searches: [search('api key', 10), search('sso', 2)], totalSearches: 99, nextCursor: null },
    ], { totalSearches: 99 });
    const exact = spooled('searches', day('2026-03-03', '2026-03-04'), [
      { searches: [search('api key', 10)], totalSearches: 12, nextCursor: 'x' },
      { searches: [search('sso', 2)], totalSearches: 12, nextCursor: null },
    ], { totalSearches: 12 });
    const none = spooled('searches', day('2026-03-04', '2026-03-05'), [{ searches: [], totalSearches: 0, nextCursor: null }], { totalSearches: 0 });
    const warnings = await db.transaction((tx) => loadWindows(tx, [short, exact, none]));
    expect(warnings.get(short.walk)).toEqual(["totalSearches 99 is not the sum of the queries' hits (12)"]);
    expect(warnings.get(exact.walk)).toEqual([]);
    expect(warnings.get(none.walk)).toEqual([]);
  });

  it('caller stats: a total that is not web + api + other is warned of; counts not stored as sent are not compared', async () => {
    const stats = (start: string, end: string, totals: Record<string, number>) => spooled('caller-stats', day(start, end), [totals], totals);
    const off = stats('2026-03-02', '2026-03-03', { web: 1, api: 2, other: 0, total: 5 });
    const exact = stats('2026-03-03', '2026-03-04', { web: 1, api: 2, other: 0, total: 3 });
    const odd = stats('2026-03-04', '2026-03-05', { web: 0.1, api: 0.2, other: 0, total: 0.3 });
    const big = stats('2026-03-05', '2026-03-06', { web: 1e20, api: 2, other: 0, total: 3 });
    const warnings = await db.transaction((tx) => loadWindows(tx, [off, exact, odd, big]));
    expect(warnings.get(off.walk)).toEqual(['caller stats total 5 is not web + api + other (3)']);
    expect(warnings.get(exact.walk)).toEqual([]);
    expect(warnings.get(odd.walk)).toEqual(['totals non_integral (stored rounded): web 0.1, api 0.2, total 0.3']);
    expect(warnings.get(big.walk)).toEqual(['totals count_out_of_range (stored as NULL): web 100000000000000000000']);
  });

  it('counts beyond 64 bits or infinite are stored as NULL with a warning, and never fail the load', async () => {
    // JSON.parse (and the walk's schema) take 1e20 and 1e400; a BIGINT cannot hold either.
    const load = spooled('searches', day('2026-03-02', '2026-03-03'), [
      { searches: [search('api key', 1e20), search('sso', 2)], totalSearches: 1e20, nextCursor: null },
    ], { totalSearches: 1e20 });
    const feedback = spooled('feedback-by-page', day('2026-03-02', '2026-03-03'), [
      { feedback: [{ path: '/a', thumbsUp: 1, thumbsDown: 0, code: 0, total: 1 }, { path: '/b', thumbsUp: 1e20, thumbsDown: 0, code: 0, total: 1e20 }] },
    ]);
    const stats = spooled('caller-stats', day('2026-03-02', '2026-03-03'), [{ web: 1, api: 0, other: 0, total: 1 }], { web: Infinity, api: 0, other: 0, total: 1 });
    const warnings = await db.transaction((tx) => loadWindows(tx, [load, feedback, stats]));
    expect(warnings.get(load.walk)).toEqual(['1 row count_out_of_range (stored as NULL)', 'totals count_out_of_range (stored as NULL): totalSearches 100000000000000000000']);
    expect(warnings.get(feedback.walk)).toEqual(['1 row count_out_of_range (stored as NULL)']);
    expect(warnings.get(stats.walk)).toContain('totals count_out_of_range (stored as NULL): web Infinity');
    expect(await db.all(`SELECT search_query, hits FROM searches ORDER BY search_query`)).toEqual([
      { search_query: 'api key', hits: null },
      { search_query: 'sso', hits: 2n },
    ]);
    expect(await db.all(`SELECT total_searches FROM search_totals`)).toEqual([{ total_searches: null }]);
    expect(await db.all(`SELECT path, thumbs_up, total FROM feedback_by_page ORDER BY path`)).toEqual([
      { path: '/a', thumbs_up: 1n, total: 1n },
      { path: '/b', thumbs_up: null, total: null },
    ]);
    expect(await db.all(`SELECT web, total FROM assistant_caller_stats`)).toEqual([{ web: null, total: 1n }]);
  });

  it('a row whose descriptive fields the API extended (a new enum value, a null ratio or title) is parsed and kept as sent', async () => {
    const conversations = {
      conversations: [{
        id: 'E', timestamp: '2026-03-02T10:00:00Z', query: 'q', response: 'r', responseType: 'handoff',
        sources: [{ title: null, url: 'https://d/x' }], resolutionStatus: 'escalated', queryCategory: null, pageUrl: null,
      }],
      nextCursor: null,
      hasMore: false,
    };
    const searches = { searches: [{ ...search('sso', 2), ctr: null }], totalSearches: 2, nextCursor: null };
    // What the walk checks before the body goes to the spool: these pages are answers.
    expect(parseEndpointPage('assistant', conversations, 'GET /assistant').rows).toHaveLength(1);
    expect(parseEndpointPage('searches', searches, 'GET /searches').rows).toHaveLength(1);
    await db.transaction((tx) => loadWindows(tx, [
      spooled('assistant', day('2026-03-02', '2026-03-03'), [conversations]),
      spooled('searches', day('2026-03-02', '2026-03-03'), [searches], { totalSearches: 2 }),
    ]));
    expect(await db.all(`SELECT resolution_status, response_type, sources FROM assistant_conversations`)).toEqual([
      { resolution_status: 'escalated', response_type: 'handoff', sources: [{ title: null, url: 'https://d/x' }] },
    ]);
    expect(await db.all(`SELECT search_query, ctr FROM searches`)).toEqual([{ search_query: 'sso', ctr: null }]);
  });

  it('events: a window replaces its events, and an event that moved to another window is not doubled', async () => {
    const conv = (id: string, ts: string) => ({
      id, timestamp: ts, query: `q ${id}`, response: 'r', sources: [{ title: 'T', url: 'https://d/x' }],
      resolutionStatus: 'answered', queryCategory: null, pageUrl: null, threadId: null,
    });
    const first = spooled('assistant', day('2026-03-02', '2026-03-03'), [
      { conversations: [conv('A', '2026-03-02T10:00:00Z'), conv('B', '2026-03-02T23:59:59Z')], nextCursor: null, hasMore: false },
    ]);
    await db.transaction((tx) => loadWindows(tx, [first]));
    // Later, B is served under the next day, and A's day is fetched again without it.
    const next = spooled('assistant', day('2026-03-03', '2026-03-04'), [{ conversations: [conv('B', '2026-03-03T00:00:01Z')], nextCursor: null, hasMore: false }], {}, 'run-2');
    await db.transaction((tx) => loadWindows(tx, [next]));
    const again = spooled('assistant', day('2026-03-02', '2026-03-03'), [{ conversations: [conv('A', '2026-03-02T10:00:00Z')], nextCursor: null, hasMore: false }], {}, 'run-3');
    await db.transaction((tx) => loadWindows(tx, [again]));
    expect(await db.all(`SELECT id, strftime(window_start, '%Y-%m-%d') AS day, response_type, sources FROM assistant_conversations ORDER BY id`)).toEqual([
      { id: 'A', day: '2026-03-02', response_type: 'answer', sources: [{ title: 'T', url: 'https://d/x' }] },
      { id: 'B', day: '2026-03-03', response_type: 'answer', sources: [{ title: 'T', url: 'https://d/x' }] },
    ]);
  });

  it('assistant: a blank threadId is no thread name: the row names its thread by its id, and no blank thread is planned', async () => {
    const conv = (id: string, threadId: string | null) => ({
      id, timestamp: '2026-03-02T10:00:00Z', query: `q ${id}`, response: 'r', sources: [],
      resolutionStatus: 'answered', queryCategory: null, pageUrl: null, threadId,
    });
    const load = spooled('assistant', day('2026-03-02', '2026-03-03'), [
      { conversations: [conv('A', ''), conv('B', '  '), conv('C', 'thread-c'), conv('D', null)], nextCursor: null, hasMore: false },
    ]);
    await db.transaction((tx) => loadWindows(tx, [load]));
    expect(await db.all(`SELECT id, ${conversationThreadSql()} AS thread FROM assistant_conversations ORDER BY id`)).toEqual([
      { id: 'A', thread: 'A' },
      { id: 'B', thread: 'B' },
      { id: 'C', thread: 'thread-c' },
      { id: 'D', thread: 'D' },
    ]);
    // A row an earlier release stored with a blank thread_id reads the same way.
    await db.run(`UPDATE assistant_conversations SET thread_id = '' WHERE id = 'D'`);
    expect(await db.all(`SELECT ${conversationThreadSql()} AS thread FROM assistant_conversations WHERE id = 'D'`)).toEqual([{ thread: 'D' }]);
    expect(planThreads(['x', '', ' ', 'y'], new Set(), new Set(), true)).toEqual(['x', 'y']);
  });

  it('a timestamp that is not one is stored as NULL and said on its window, never silently', async () => {
    const conv = (id: string, timestamp: string | null) => ({
      id, timestamp, query: `q ${id}`, response: 'r', sources: [], resolutionStatus: 'answered', queryCategory: null, pageUrl: null,
    });
    const load = spooled('assistant', day('2026-03-02', '2026-03-03'), [
      { conversations: [conv('A', '2026-03-02T10:00:00Z'), conv('B', 'not a date'), conv('C', null)], nextCursor: null, hasMore: false },
    ]);
    const searches = spooled('searches', day('2026-03-02', '2026-03-03'), [
      { searches: [{ ...search('sso', 2), lastSearchedAt: 'yesterday' }, search('api', 1)], totalSearches: 3, nextCursor: null },
    ], { totalSearches: 3 });
    const warnings = await db.transaction((tx) => loadWindows(tx, [load, searches]));
    expect(warnings.get(load.walk)).toEqual(['1 row timestamp_invalid (stored as NULL)']);
    expect(warnings.get(searches.walk)).toEqual(['1 row timestamp_invalid (stored as NULL)']);
    expect(await db.all(`SELECT id, "timestamp" IS NULL AS missing FROM assistant_conversations ORDER BY id`)).toEqual([
      { id: 'A', missing: false },
      { id: 'B', missing: true },
      { id: 'C', missing: true },
    ]);
  });

  it('ISO 8601 timestamps without seconds are read, in UTC', async () => {
    const sent = ['2026-03-02T10:00Z', '2026-03-02T10Z', '2026-03-02T12:00+02:00', '2026-03-02T05:30-0430', '2026-03-02 10:00Z', '2026-03-02T10:00:00.5Z', '2026-03-02T1000Z'];
    const conv = (id: string, timestamp: string) => ({
      id, timestamp, query: `q ${id}`, response: 'r', sources: [], resolutionStatus: 'answered', queryCategory: null, pageUrl: null,
    });
    const load = spooled('assistant', day('2026-03-02', '2026-03-03'), [
      { conversations: sent.map((t, i) => conv(`c${i}`, t)), nextCursor: null, hasMore: false },
    ]);
    const warnings = await db.transaction((tx) => loadWindows(tx, [load]));
    // The last is no ISO 8601 (no colon between hour and minute): NULL, and said.
    expect(warnings.get(load.walk)).toEqual(['1 row timestamp_invalid (stored as NULL)']);
    const rows = await db.all<{ t: string | null }>(`SELECT strftime("timestamp" AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%g') AS t FROM assistant_conversations ORDER BY id`);
    expect(rows.map((r) => r.t)).toEqual([
      '2026-03-02T10:00:00.000', '2026-03-02T10:00:00.000', '2026-03-02T10:00:00.000', '2026-03-02T10:00:00.000',
      '2026-03-02T10:00:00.000', '2026-03-02T10:00:00.500', null,
    ]);
  });

  it('a load that fails half-way leaves the window as it was', async () => {
    const good = spooled('feedback-by-page', day('2026-03-02', '2026-03-03'), [{ feedback: [{ path: '/a', thumbsUp: 1, thumbsDown: 2, code: 0, total: 3 }], hasMore: false }]);
    await db.transaction((tx) => loadWindows(tx, [good]));
    const broken = spooled('feedback-by-page', day('2026-03-02', '2026-03-03'), [{ feedback: [{ path: '/b', thumbsUp: 1, thumbsDown: 0, code: 0, total: 1 }], hasMore: false }], {}, 'run-2');
    await expect(db.transaction((tx) => loadWindows(tx, [{ ...broken, file: join(dir, 'missing.jsonl') }]))).rejects.toThrow();
    expect(await db.all(`SELECT path, thumbs_down, run_id FROM feedback_by_page`)).toEqual([{ path: '/a', thumbs_down: 2n, run_id: 'run-1' }]);
  });
});
