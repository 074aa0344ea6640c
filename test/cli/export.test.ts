import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/load/database.js';
import { SANDBOX_API_KEY } from '../../src/sandbox/server.js';
import { RequestJournal } from '../../src/spool/request-journal.js';
import { Spool, spoolDirFor, type SpoolWalk } from '../../src/spool/spool.js';
import type { ProcessRef } from '../../src/core/process-identity.js';
import { logLines, startHarness, summaryOf, type CliResult, type Harness, queryDb, asText } from './harness.js';

const NOW = '2026-03-10T06:00:00Z';
const HOUR = 3_600_000;

/** Every row the sandbox serves for a window, read page by page with plain fetch. */
async function apiRows(h: Harness, metric: string, from: string, to: string): Promise<Map<string, number>> {
  const rows = new Map<string, number>();
  for (let offset = 0; ; offset += 250) {
    const res = await fetch(`${h.sandbox.url}/v1/analytics/docs/${metric}?dateFrom=${from}&dateTo=${to}&limit=250&offset=${offset}`, {
      headers: { authorization: `Bearer ${SANDBOX_API_KEY}` },
    });
    const body = (await res.json()) as { hasMore: boolean } & Record<string, { path: string; total: number }[]>;
    for (const r of body[metric] ?? []) rows.set(r.path, r.total);
    if (!body.hasMore) return rows;
  }
}

/**
 * Starts an export of [2026-03-05, 2026-03-08) whose second page request is slow; while it is
 * in flight (after `check`), another run (a pod that found this one's heartbeat stale) takes
 * over the walk of 2026-03-07 by appending its owner line.
 */
async function takenOverWhileSlow(
  x: Harness,
  check: (walk: SpoolWalk) => void,
): Promise<{ first: Promise<CliResult>; walk: SpoolWalk; other: ProcessRef }> {
  x.sandbox.addFault({ kind: 'slow', match: { path: '/visitors' }, skip: 1, delayMs: 1_500, times: 1 });
  const first = x.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-08']);
  while (x.requests('/visitors') < 2) await new Promise((resolve) => setTimeout(resolve, 5));
  const walk = new Spool(spoolDirFor(x.db)).walk({ metric: 'visitors', projectId: 'docs' }, { start: '2026-03-07', end: '2026-03-08' });
  check(walk);
  const other = { pid: 1, host: `pod-${process.pid}`, start: '4242.0badc0de.4026531999' };
  appendFileSync(walk.pagesFile, `${JSON.stringify({ owner: other })}\n`);
  return { first, walk, other };
}

/** The export of takenOverWhileSlow ended well, leaving 2026-03-07 to the other run for `reason`. */
function expectLeftToOther(result: CliResult, reason: string): void {
  expect(result.code, result.stderr).toBe(0);
  expect(summaryOf(result)).toMatchObject({ windowsPlanned: 3, windowsLoaded: 2, windowsSkipped: 1, windowsFailed: 0 });
  expect(logLines(result).find((l) => l.window_start === '2026-03-07')).toMatchObject({ event: 'window skipped', reason });
}

describe('docpipe export', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(NOW, { site: { paths: 400 } });
  });
  afterEach(async () => {
    await h.close();
  });

  it('loads every row of every day window, and a re-run makes no request', async () => {
    const first = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-08']);
    expect(first.code).toBe(0);
    const summary = summaryOf(first);
    expect(summary).toMatchObject({ windowsPlanned: 7, windowsLoaded: 7, windowsSkipped: 0, windowsFailed: 0 });
    const requests = h.requests('/visitors');
    expect(summary.requests).toBe(requests);

    const loaded = await queryDb<{ path: string; total: bigint }>(
      h,
      `SELECT path, total FROM page_visitors WHERE window_start = '2026-03-07' AND window_end = '2026-03-08'`,
    );
    const expected = await apiRows(h, 'visitors', '2026-03-07', '2026-03-08');
    expect(expected.size).toBeGreaterThan(250); // more than one page
    expect(new Map(loaded.map((r) => [r.path, Number(r.total)]))).toEqual(expected);
    const windows = await queryDb<{ n: bigint; days: bigint }>(
      h,
      `SELECT count(*) AS n, count(DISTINCT window_start) AS days FROM visitor_totals`,
    );
    expect(windows).toEqual([{ n: 7n, days: 7n }]);
    // No day at or past the exclusive --to.
    expect(await queryDb(h, `SELECT * FROM page_visitors WHERE window_start >= '2026-03-08'`)).toEqual([]);

    const before = h.sandbox.requests.length;
    const again = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-08']);
    expect(again.code).toBe(0);
    expect(h.requests()).toBe(before);
    expect(summaryOf(again)).toMatchObject({ windowsSkipped: 7, windowsLoaded: 0, requests: 0 });
  });

  it('a spool it cannot write a claim in stops the run with its summary (exit 1), keeping what is loaded, and the run is recorded', async () => {
    const range = ['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-04'];
    expect((await h.run([...range.slice(0, 5), '--from', '2026-03-03', '--to', '2026-03-04'])).code).toBe(0);
    const requests = h.sandbox.requests.length;
    // A file where the project's walk folder goes: no claim can be made (as on a full disk).
    rmSync(join(spoolDirFor(h.db), 'walks', 'visitors', 'docs'), { recursive: true, force: true });
    writeFileSync(join(spoolDirFor(h.db), 'walks', 'visitors', 'docs'), 'not a folder');
    const result = await h.run(range);
    expect(result.code).toBe(1);
    expect(summaryOf(result)).toMatchObject({ stopped: 'fatal', windowsLoaded: 0, stopMessage: expect.stringMatching(/^cannot claim the walk of visitors 2026-03-02\.\.2026-03-03 in the spool: EEXIST/) });
    expect(h.sandbox.requests.length).toBe(requests);
    expect(await queryDb(h, `SELECT count(*)::INTEGER AS n FROM loaded_windows`)).toEqual([{ n: 1 }]);
    expect(await queryDb(h, `SELECT status, exit_code::INTEGER AS exit_code FROM runs WHERE run_id = '${summaryOf(result).runId as string}'`)).toEqual([{ status: 'fatal', exit_code: 1 }]);
  });

  it('--refresh reloads and changes nothing but run_id and extracted_at', async () => {
    await h.run(['export', 'views', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-03']);
    const snapshot = `SELECT project_id, window_start, window_end, path, human, ai, total FROM page_views ORDER BY ALL`;
    const before = await queryDb(h, snapshot);
    const runsBefore = await queryDb(h, 'SELECT DISTINCT run_id FROM page_views');
    const again = await h.run(['export', 'views', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-03', '--refresh']);
    expect(again.code).toBe(0);
    expect(summaryOf(again)).toMatchObject({ windowsLoaded: 2 });
    expect(await queryDb(h, snapshot)).toEqual(before);
    const runsAfter = await queryDb(h, 'SELECT DISTINCT run_id FROM page_views');
    expect(runsAfter).toHaveLength(1);
    expect(runsAfter).not.toEqual(runsBefore);
  });

  it('loads week windows with their own uniques, never sums of days', async () => {
    const week = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-02-23', '--to', '2026-03-02', '--window', 'week']);
    const days = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-02-23', '--to', '2026-03-02']);
    expect([week.code, days.code]).toEqual([0, 0]);
    const [row] = await queryDb<{ week: bigint; max_day: bigint; sum_days: bigint }>(
      h,
      `SELECT (SELECT total FROM visitor_totals WHERE window_end - window_start = 7) AS week,
              (SELECT max(total) FROM visitor_totals WHERE window_end - window_start = 1) AS max_day,
              (SELECT sum(total) FROM visitor_totals WHERE window_end - window_start = 1) AS sum_days`,
    );
    expect(row!.week).toBeGreaterThanOrEqual(row!.max_day);
    expect(row!.week).toBeLessThan(row!.sum_days);
  });

  it('honours Retry-After exactly without using up a retry', async () => {
    h.sandbox.addFault({ kind: 'rate-limit', match: { path: '/visitors' }, retryAfter: '7', times: 1 });
    h.sandbox.addFault({ kind: 'server-error', status: 503, retryAfter: '3', match: { path: '/visitors' }, times: 1 });
    const result = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-06']);
    expect(result.code).toBe(0);
    expect(h.clock.sleeps).toEqual([7000, 3000]);
    expect(summaryOf(result)).toMatchObject({ windowsLoaded: 1, retries: 2 });
    const statuses = h.sandbox.requests.map((r) => r.status);
    expect(statuses.slice(0, 3)).toEqual([429, 503, 200]);
  });

  it('backs off on 429 without Retry-After, 500, drops and malformed bodies, then loads', async () => {
    h.sandbox.addFault({ kind: 'rate-limit', match: { path: '/visitors' } });
    h.sandbox.addFault({ kind: 'server-error', match: { path: '/visitors' } });
    h.sandbox.addFault({ kind: 'drop', match: { path: '/visitors' } });
    h.sandbox.addFault({ kind: 'malformed', match: { path: '/visitors' } });
    const result = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-06']);
    expect(result.code).toBe(0);
    expect(summaryOf(result)).toMatchObject({ windowsLoaded: 1, retries: 4 });
    // Every backoff waits on the clock, doubling from --min-backoff (1 ms here) with jitter.
    expect(h.clock.sleeps).toHaveLength(4);
    h.clock.sleeps.forEach((ms, i) => expect(ms).toBeLessThanOrEqual(Math.min(5, 2 ** i) * 1.5));
    // ... and every retry is logged with its status, attempt and wait.
    const retries = logLines(result).filter((l) => l.event === 'retrying request');
    expect(retries.map((l) => [l.status, l.attempt, l.wait])).toEqual([
      [429, 1, 'backoff'],
      [500, 2, 'backoff'],
      [undefined, 3, 'backoff'],
      [undefined, 4, 'backoff'],
    ]);
    expect(retries.map((l) => l.wait_ms)).toEqual(h.clock.sleeps);
    expect(retries[2]).toMatchObject({ level: 'warn', method: 'GET', error: expect.stringMatching(/ECONNRESET|socket|network/i) });
  });

  it('stops with exit 75 when a Retry-After is longer than a minute, keeping what loaded', async () => {
    h.sandbox.addFault({ kind: 'rate-limit', match: { path: '/visitors' }, retryAfter: '900', skip: 2, times: Infinity });
    const result = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-05']);
    expect(result.code).toBe(75);
    const summary = summaryOf(result);
    expect(summary).toMatchObject({ stopped: 'budget', windowsLoaded: 1 });
    // Most recent first: the freshest window is the one that landed.
    expect(await queryDb(h, `SELECT strftime(window_start, '%Y-%m-%d') AS d FROM visitor_totals`)).toEqual([{ d: '2026-03-04' }]);
  });

  it('re-walks a window whose rows drift between pages, and warns when drift persists', async () => {
    h.sandbox.addFault({ kind: 'drift', match: { path: '/visitors' }, times: 1 });
    const once = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-06']);
    expect(once.code).toBe(0);
    expect(await queryDb(h, 'SELECT walks, len(warnings) AS w FROM loaded_windows')).toEqual([{ walks: 2, w: 0n }]);

    h.sandbox.addFault({ kind: 'drift', match: { path: '/visitors' }, times: Infinity });
    const always = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-06', '--refresh']);
    expect(always.code).toBe(0);
    const [row] = await queryDb<{ walks: number; warnings: string[] }>(h, 'SELECT walks, warnings FROM loaded_windows');
    expect(row!.walks).toBe(4);
    expect(row!.warnings[0]).toMatch(/drifted/);
    // Loaded all the same, each path once.
    const [dupes] = await queryDb<{ n: bigint; d: bigint }>(h, 'SELECT count(*) AS n, count(DISTINCT path) AS d FROM page_visitors');
    expect(dupes!.n).toBe(dupes!.d);
  });

  it('keeps the previous copy of a window that fails half-way', async () => {
    await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-06']);
    const before = await queryDb(h, 'SELECT path, total, run_id FROM page_visitors ORDER BY path');
    // The second page fails every time: retries run out half-way through the window.
    h.sandbox.addFault({ kind: 'server-error', match: { path: '/visitors' }, skip: 1, times: Infinity });
    const result = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-06', '--refresh']);
    expect(result.code).toBe(1);
    expect(summaryOf(result)).toMatchObject({ windowsFailed: 1, windowsLoaded: 0 });
    expect(await queryDb(h, 'SELECT path, total, run_id FROM page_visitors ORDER BY path')).toEqual(before);
    expect(logLines(result).some((l) => l.event === 'window failed' && String(l.error).includes('HTTP 500'))).toBe(true);
  });

  it('caps a run with --max-requests (exit 75) and the next run carries on', async () => {
    const first = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-08', '--max-requests', '4']);
    expect(first.code).toBe(75);
    expect(h.requests('/visitors')).toBe(4);
    expect(summaryOf(first)).toMatchObject({ windowsLoaded: 2, stopped: 'budget', windowsLeft: 5 });
    const second = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-08']);
    expect(second.code).toBe(0);
    expect(summaryOf(second)).toMatchObject({ windowsLoaded: 5, windowsSkipped: 2 });
  });

  it('keeps the pages of a window cut off by the budget: the next run fetches only the rest', async () => {
    const args = ['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-08'];
    // 7 windows of 2 pages: the 5th request is the first page of the third window.
    const first = await h.run([...args, '--max-requests', '5']);
    expect(first.code).toBe(75);
    expect(summaryOf(first)).toMatchObject({ windowsLoaded: 2, windowsLeft: 5, requests: 5 });
    const second = await h.run(args);
    expect(second.code).toBe(0);
    expect(summaryOf(second)).toMatchObject({ windowsLoaded: 5, requests: 9 });
    // No page was fetched twice: the cut window resumed at its second page.
    const offsets = h.sandbox.requests
      .filter((r) => r.path.endsWith('/visitors'))
      .map((r) => `${r.query.dateFrom}@${r.query.offset}`);
    expect(new Set(offsets).size).toBe(14);
    expect(offsets).toHaveLength(14);
    // Every attempt of both runs is in the request log, once.
    expect(await queryDb(h, `SELECT count(*) AS n, count(DISTINCT request_id) AS ids FROM request_log`)).toEqual([{ n: 14n, ids: 14n }]);
    const [loaded] = await queryDb<{ rows: bigint; windows: bigint }>(h, `SELECT sum(row_count) AS rows, count(*) AS windows FROM loaded_windows`);
    const [pages] = await queryDb<{ n: bigint }>(h, `SELECT count(*) AS n FROM page_visitors`);
    expect(loaded).toEqual({ rows: pages!.n, windows: 7n });
  });

  it('remembers the hourly budget across runs through the request log', async () => {
    const args = ['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-08', '--requests-per-hour', '6'];
    const first = await h.run(args);
    expect(first.code).toBe(75);
    expect(h.requests('/visitors')).toBe(6);
    const second = await h.run(args);
    expect(second.code).toBe(75);
    expect(h.requests('/visitors')).toBe(6); // nothing left this hour
    h.clock.advance(HOUR);
    const third = await h.run(args);
    expect(h.requests('/visitors')).toBe(12);
    expect(third.code).toBe(75);
  });

  it('removes the slot lock a killed run left in the spool, though it runs alone (the kill -9 soak found it left over)', async () => {
    const lock = join(new Spool(spoolDirFor(h.db)).requestsDir, 'budget.lock');
    mkdirSync(join(lock, '..'), { recursive: true });
    // The holder, a run on this host that is gone (no such pid).
    writeFileSync(lock, JSON.stringify({ owner: { pid: 999_999, host: hostname() } }));
    const run = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-03']);
    expect(run.code, asText(run.stderr)).toBe(0);
    expect(existsSync(lock)).toBe(false);
  });

  it('on a new database (made while the first requests go out) still counts the requests of the hour its journal holds', async () => {
    // Four requests of this hour that reached no database: a run killed before its first write,
    // whose file was then deleted. Written by the journal itself, as that run would have.
    const journal = new RequestJournal(new Spool(spoolDirFor(h.db)).requestsDir, 'earlier-run');
    for (let i = 0; i < 4; i++) {
      const attempt = { scope: `analytics@${new URL(h.sandbox.url).origin}`, method: 'GET', path: '/v1/analytics/docs/visitors', startedAt: h.clock.now() - 60_000 };
      journal.end(journal.begin(attempt), attempt, 200, 5);
    }
    journal.close();
    const result = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-08', '--requests-per-hour', '6']);
    expect(result.code).toBe(75);
    expect(h.requests('/visitors')).toBe(2);
    // The new file has this release's schema and the run's record, and the requests are logged.
    const [row] = await queryDb(h, `SELECT (SELECT max(version) FROM schema_version) AS version, (SELECT count(*) FROM runs) AS runs`);
    expect(row).toMatchObject({ runs: 1n });
    expect(Number(row?.version)).toBeGreaterThanOrEqual(6);
  });

  it('writes one JSON log line per window when not on a terminal', async () => {
    const result = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-04']);
    const windows = logLines(result).filter((l) => l.event === 'window loaded');
    expect(windows.map((l) => l.window_start)).toEqual(['2026-03-03', '2026-03-02', '2026-03-01']);
    expect(windows[0]).toMatchObject({ metric: 'visitors', project: 'docs', reason: 'new' });
  });

  it('stops on Ctrl-C with exit 130, keeping finished windows and the pages received', async () => {
    const controller = new AbortController();
    h.sandbox.addFault({ kind: 'slow', delayMs: 50, times: Infinity });
    // Ctrl-C after the first page of the third window (2 pages a window).
    const watch = setInterval(() => {
      if (h.requests('/visitors') >= 5) controller.abort();
    }, 2);
    const args = ['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-08'];
    const result = await h.run(args, { signal: controller.signal });
    clearInterval(watch);
    expect(result.code).toBe(130);
    const loaded = await queryDb<{ n: bigint }>(h, 'SELECT count(*) AS n FROM loaded_windows');
    expect(loaded[0]!.n).toBeGreaterThanOrEqual(2n);
    expect(loaded[0]!.n).toBeLessThan(7n);
    expect(summaryOf(result)).toMatchObject({ stopped: 'interrupted' });
    const before = h.requests('/visitors');
    const again = await h.run(args);
    expect(again.code).toBe(0);
    // Only the request cut off by Ctrl-C (if any) is made again.
    expect(before + Number(summaryOf(again).requests)).toBeLessThanOrEqual(15);
    expect(await queryDb(h, 'SELECT count(*) AS n FROM loaded_windows')).toEqual([{ n: 7n }]);
  });

  it.each([
    [['--from', '2026-02-30', '--to', '2026-03-02'], /invalid --from '2026-02-30'/],
    [['--from', '2026-03-02', '--to', '2026-03-02'], /--from 2026-03-02 must be before --to 2026-03-02/],
    [['--from', '2026-03-04', '--to', '2026-03-16', '--window', 'week'], /nearest are 2026-03-02 and 2026-03-09/],
    [['--from', '2026-03-01', '--to', '2026-03-02', '--window', 'fortnight'], /fortnight/],
    [['--from', '2026-03-01', '--to', '2026-03-02', '--lookback-days', '-1'], /invalid --lookback-days '-1'/],
    [['--from', '2026-03-01', '--to', '2026-03-02', '--lookback-days', '99999999'], /invalid --lookback-days '99999999': expected a whole number .*366/],
  ])('bad input %j exits 2 with one line naming it, and loses nothing', async (args, message) => {
    await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-06']);
    const result = await h.run(['export', 'visitors', '--project', 'docs', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(asText(result.stderr)).toMatch(message);
    expect(await queryDb(h, 'SELECT count(*) AS n FROM visitor_totals')).toEqual([{ n: 1n }]);
  });

  it('warns about windows that are not closed yet, and loads what exists', async () => {
    const result = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-08', '--to', '2026-03-11']);
    expect(result.code).toBe(0);
    expect(logLines(result).find((l) => l.event === 'window not closed yet')).toMatchObject({ level: 'warn', windows: 1, first: '2026-03-10' });
    expect(summaryOf(result)).toMatchObject({ windowsLoaded: 3 });
  });

  it('refuses windows that start after today, and ranges of over ten years, before any request (exit 2)', async () => {
    const future = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-09', '--to', '2026-03-13']);
    expect(future.code).toBe(2);
    expect(asText(future.stderr).trim()).toBe(
      'docpipe: --to 2026-03-13 is past today (2026-03-10, UTC): 2 windows would start after today and have no data; the last window with data ends 2026-03-11',
    );
    // A month window that starts today is partial, not future: allowed.
    const month = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-04-01', '--window', 'month', '--max-requests', '0']);
    expect(asText(month.stderr)).not.toMatch(/past today/);
    const decade = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2006-01-01', '--to', '2026-01-01']);
    expect(decade.code).toBe(2);
    expect(asText(decade.stderr)).toMatch(/range 2006-01-01 \.\. 2026-01-01 spans more than ten years/);
    const typo = await h.run(['export', 'visitors', '--project', 'docs', '--from', '0026-01-01', '--to', '0026-01-04']);
    expect(typo.code).toBe(2);
    expect(asText(typo.stderr)).toBe('docpipe: --from 0026-01-01 is before 2000: check the year\n');
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('needs a key and a project (exit 2)', async () => {
    const noKey = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-06'], { withKey: false });
    expect(noKey.code).toBe(2);
    expect(asText(noKey.stderr)).toMatch(/no API key/);
    const noProject = await h.run(['export', 'visitors', '--from', '2026-03-05', '--to', '2026-03-06']);
    expect(noProject.code).toBe(2);
    expect(asText(noProject.stderr)).toMatch(/no project/);
  });

  it('never prints, logs or stores the key, even on auth failures with --verbose', async () => {
    const secret = 'mint_this_is_a_secret_key_123';
    const bad = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-06', '--api-key', secret, '--verbose']);
    expect(bad.code).toBe(1);
    expect(asText(bad.stderr)).toMatch(/HTTP 401/);
    expect(bad.stdout + bad.stderr).not.toContain(secret);
    const plain = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-06', '--base-url', 'http://docs.example.com']);
    expect(plain.code).toBe(2);
    expect(asText(plain.stderr)).toMatch(/refusing to send the API key over plain http to 'docs.example.com'/);
    // Refused before anything was written: no run left running, and no database made.
    expect(await queryDb(h, `SELECT * FROM runs WHERE status = 'running'`)).toEqual([]);
    const fresh = join(h.dir, 'never.duckdb');
    const none = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-06', '--base-url', 'http://docs.example.com', '--db', fresh]);
    expect(none.code).toBe(2);
    expect(existsSync(fresh)).toBe(false);
    const dump = await queryDb<{ t: string }>(h, `SELECT string_agg(COLUMNS(*)::VARCHAR, '|') AS t FROM request_log`);
    expect(JSON.stringify(dump)).not.toContain(secret);
    expect(JSON.stringify(await queryDb(h, 'SELECT * FROM runs'))).not.toContain(secret);
  });

  it('reports a database held by another process clearly', async () => {
    await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-06']);
    const held = await Database.open(h.db);
    try {
      const child = spawnSync(process.execPath, ['bin/docpipe.js', 'query', 'SELECT 1', '--db', h.db, '--lock-timeout', '1', '--log-format', 'text'], { encoding: 'utf8' });
      // It waited for the writer, then gave up with exit 75 and one line naming the holder.
      expect(child.status).toBe(75);
      const lines = child.stderr.trim().split('\n');
      expect(lines[0]).toMatch(/database busy .*holder=process \d+/);
      expect(lines.at(-1)).toMatch(/^docpipe: database .* is held by process \d+ .*waited 1 s, try again later$/);
      expect(lines).toHaveLength(2);
    } finally {
      held.close();
    }
  });

  it('an export the database is held from before it begins ends with its summary (stopped: locked, exit 75), and makes no request', async () => {
    await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-06']);
    const before = h.requests();
    const held = await Database.open(h.db);
    try {
      const child = spawnSync(
        process.execPath,
        ['bin/docpipe.js', 'export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-05', '--db', h.db,
          '--base-url', h.sandbox.url, '--lock-timeout', '1', '--log-format', 'json'],
        { encoding: 'utf8', env: { ...process.env, DOCPIPE_API_KEY: SANDBOX_API_KEY } },
      );
      expect(child.status, child.stderr).toBe(75);
      const summary = JSON.parse(child.stdout.trim()) as Record<string, unknown>;
      expect(summary).toMatchObject({ command: 'export visitors', stopped: 'locked', exitCode: 75, requests: 0, windowsLoaded: 0 });
      expect(String(summary.stopMessage)).toMatch(/^database .* is held by process \d+ .*try again later$/);
    } finally {
      held.close();
    }
    expect(h.sandbox.requests.length).toBe(before);
  });

  it('an export stopped while it waits for the database ends with its summary (stopped: interrupted, exit 130), and makes no request', async () => {
    await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-06']);
    const before = h.requests();
    const held = await Database.open(h.db, { readOnly: true });
    try {
      const stopped = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-05', '--lock-timeout', '60'], {
        signal: AbortSignal.timeout(300),
      });
      expect(stopped.code, stopped.stderr).toBe(130);
      expect(summaryOf(stopped)).toMatchObject({ command: 'export visitors', stopped: 'interrupted', exitCode: 130, requests: 0, windowsLoaded: 0 });
    } finally {
      await held.close();
    }
    expect(h.sandbox.requests.length).toBe(before);
  });
});

describe('docpipe sync', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness('2026-03-10T06:00:00Z', { site: { paths: 120 } });
  });
  afterEach(async () => {
    await h.close();
  });

  it('two exports of the same windows at once in one process (a library caller) walk each window once', async () => {
    const args = ['export', 'visitors', '--project', 'docs', '--from', '2026-02-20', '--to', '2026-03-08', '--requests-per-hour', '100000'];
    // Both runs' walk files name this process as their owner: only the process's own record
    // of its runs' claims keeps them apart.
    const [a, b] = await Promise.all([h.run(args), h.run(args)]);
    expect([a.code, b.code], `${a.stderr}\n${b.stderr}`).toEqual([0, 0]);
    expect(Number(summaryOf(a).windowsLoaded) + Number(summaryOf(b).windowsLoaded)).toBe(16);
    // Every request went to a page of a loaded window: none was fetched twice.
    const [walked] = await queryDb<{ pages: bigint; windows: bigint }>(h, `SELECT sum(pages) AS pages, count(*) AS windows FROM loaded_windows`);
    expect(walked).toEqual({ pages: BigInt(h.requests('/visitors')), windows: 16n });
    expect((await h.run(['doctor'])).code).toBe(0);
  });

  it('a run stopped while another took its walk over writes nothing more to it, and leaves the window to the other', async () => {
    // 1,500 paths: several pages a window. The second page of the first window (2026-03-07) is
    // slow; meanwhile another run (one that found this run's heartbeat stale) takes the walk over.
    const big = await startHarness(NOW, { site: { paths: 1_500 } });
    try {
      const { first, walk, other } = await takenOverWhileSlow(big, () =>
        expect(big.sandbox.requests.at(-1)!.query).toMatchObject({ dateFrom: '2026-03-07', offset: '250' }),
      );
      const taken = readFileSync(walk.pagesFile, 'utf8');
      expectLeftToOther(await first, 'another docpipe run took over the walk of visitors docs [2026-03-07, 2026-03-08)');
      // The page that arrived after the takeover was not written; the walk is the other run's.
      expect(readFileSync(walk.pagesFile, 'utf8')).toBe(taken);
      expect(walk.owner()).toEqual(other);
      expect(await queryDb(big, `SELECT count(*) AS n FROM loaded_windows WHERE window_start = '2026-03-07'`)).toEqual([{ n: 0n }]);
    } finally {
      await big.close();
    }
  });

  it('a walk another run took over before this run loaded it is left to that run (not loaded twice, not a failure)', async () => {
    // One page a window. The first window (2026-03-07) is walked and waits for the loader (a
    // batch lingers up to 1 s for more windows); the next window's request is slow, and
    // meanwhile another run that found this one's heartbeat stale takes the walk over.
    const { first, walk, other } = await takenOverWhileSlow(h, (w) => expect(w.completed()).not.toBeNull());
    expectLeftToOther(await first, 'another docpipe run took over this walk before it was loaded');
    // The walk stays, the other run's to load.
    expect(walk.owner()).toEqual(other);
    expect(walk.completed()).not.toBeNull();
    expect(await queryDb(h, `SELECT count(*) AS n FROM loaded_windows WHERE window_start = '2026-03-07'`)).toEqual([{ n: 0n }]);
  });

  it.each([
    ['holds a walk in the spool', 'walk'],
    ['is recorded running in runs', 'run'],
    ['journals its requests in the spool (it started after this run planned, or overtook it)', 'journal'],
  ] as const)('a run that finds another at work (it %s) does not fetch a window the other loaded after its plan', async (_how, how) => {
    // Another run is at work: this run starts knowing runs overlap.
    const elsewhere = new Spool(spoolDirFor(h.db)).walk({ metric: 'visitors', projectId: 'docs' }, { start: '2026-02-01', end: '2026-02-02' });
    if (how === 'walk') expect(elsewhere.claim()).toBe(true);
    else if (how === 'journal') {
      // A process that is alive (this one's parent) with a request journal in the spool.
      mkdirSync(join(spoolDirFor(h.db), 'requests'), { recursive: true });
      writeFileSync(join(spoolDirFor(h.db), 'requests', `${process.ppid}-other-run.jsonl`), '');
    } else {
      // A process that is alive (this one's parent) with its run recorded `running`.
      expect((await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-02-01', '--to', '2026-02-02'])).code).toBe(0);
      await Database.with(h.db, {}, (db) =>
        db.run(`INSERT INTO runs (run_id, command, started_at, status, pid, host) VALUES ('other', 'sync', now(), 'running', $pid, $host)`, {
          pid: process.ppid,
          host: hostname(),
        }),
      );
    }
    try {
      // The run's first request (2026-03-07, most recent first) is slow; meanwhile another run
      // loads 2026-03-06, which the first had planned to fetch next.
      h.sandbox.addFault({ kind: 'slow', match: { path: '/visitors' }, delayMs: 1_500, times: 1 });
      const first = h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-08']);
      while (h.requests('/visitors') === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const other = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-06', '--to', '2026-03-07']);
      expect(other.code).toBe(0);
      const result = await first;
      expect(result.code, result.stderr).toBe(0);
      expect(summaryOf(result)).toMatchObject({ windowsPlanned: 3, windowsLoaded: 2, windowsSkipped: 1 });
      expect(logLines(result).find((l) => l.window_start === '2026-03-06')).toMatchObject({
        event: 'window skipped',
        reason: 'another docpipe run loaded this window after this run planned',
      });
      // 2026-03-06 was fetched once, by the other run.
      const [walked] = await queryDb<{ pages: bigint }>(h, `SELECT sum(pages) AS pages FROM loaded_windows`);
      expect(BigInt(h.requests('/visitors'))).toBe(walked!.pages);
    } finally {
      elsewhere.release();
    }
  });

  it('loads closed windows, re-fetches recent ones once a day until settled', async () => {
    const file = join(h.dir, 'nightly.json');
    writeFileSync(file, JSON.stringify({ projects: ['docs'], metrics: ['visitors', 'views'], start: '2026-03-03', window: 'day', lookbackDays: 2, maxRequestsPerRun: 90 }));
    const first = await h.run(['sync', file]);
    expect(first.code).toBe(0);
    // 2026-03-03 .. 2026-03-09 (today, the 10th, is partial): 7 days x 2 metrics.
    expect(summaryOf(first)).toMatchObject({ windowsPlanned: 14, windowsLoaded: 14 });
    expect(await queryDb(h, `SELECT count(*) AS n FROM loaded_windows WHERE window_end > '2026-03-10'`)).toEqual([{ n: 0n }]);

    const sameDay = await h.run(['sync', file]);
    expect(summaryOf(sameDay)).toMatchObject({ windowsLoaded: 0, requests: 0 });

    h.clock.advance(24 * HOUR); // 2026-03-11
    const next = await h.run(['sync', file]);
    // New: the 10th. Unsettled (fetched on the 10th, before end + 2 days): windows ending the 9th and 10th.
    expect(summaryOf(next)).toMatchObject({ windowsLoaded: 6, windowsSkipped: 10 });
  });

  it('rejects a bad pipeline file with exit 2 naming the problem', async () => {
    const file = join(h.dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ projects: ['docs'], start: '2026-03-04', window: 'month' }));
    const result = await h.run(['sync', file]);
    expect(result.code).toBe(2);
    expect(asText(result.stderr)).toMatch(/start: 2026-03-04 is not the 1st of a month/);
    const missing = await h.run(['sync', join(h.dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(asText(missing.stderr)).toMatch(/cannot read pipeline file/);
  });
});
