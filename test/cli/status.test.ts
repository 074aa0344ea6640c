/** `docpipe status`: the figures of a partly loaded warehouse, from the database and spool only. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SLOT_MARGIN_MS } from '../../src/api/request-budget.js';
import type { StatusReport } from '../../src/cli/commands/status.js';
import { planDailyRequests, planEta, planRunsLeft, planSeriesStatus, pagesForRows } from '../../src/extract/backlog.js';
import { checkPipelineConfig, planSyncSeries } from '../../src/extract/pipeline-config.js';
import { grainOf } from '../../src/core/domain.js';
import { startHarness, type Harness, asText } from './harness.js';

const NOW = '2026-03-10T06:00:00Z';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('docpipe status', () => {
  let h: Harness;
  let file: string;
  beforeEach(async () => {
    // 400 paths: two pages a day window.
    h = await startHarness(NOW, { site: { paths: 400 } });
    file = join(h.dir, 'nightly.json');
    writeFileSync(file, JSON.stringify({ projects: ['docs'], metrics: ['visitors'], start: '2026-03-01', window: 'day', maxRequestsPerRun: 5 }));
  });
  afterEach(async () => {
    await h.close();
  });

  async function status(args: string[] = []): Promise<{ code: number; report: StatusReport; stderr: string }> {
    const before = h.sandbox.requests.length;
    const result = await h.run(['status', file, '--format', 'json', ...args]);
    expect(h.sandbox.requests.length).toBe(before); // never an API request
    return { code: result.code, report: JSON.parse(result.stdout) as StatusReport, stderr: result.stderr };
  }

  it('shows a partly loaded backfill: loaded, due, requests left, spool, budget, last run and ETA', async () => {
    // 5 requests: 2026-03-09 and 03-08 whole, the first page of 03-07 in the spool.
    expect((await h.run(['sync', file])).code).toBe(75);
    const { code, report } = await status();
    expect(code).toBe(0);
    expect(report.series).toEqual([
      {
        projectId: 'docs',
        metric: 'visitors',
        grain: 'day',
        windowsPlanned: 9,
        windowsLoaded: 2,
        newestLoaded: { start: '2026-03-09', end: '2026-03-10' },
        newestSettled: null, // fetched today, before end + lookbackDays
        backlogWindows: 7,
        backlogRequests: 6 * 2 + 1, // the spooled page of 03-07 is not paid for again
        spooledPages: 1,
        dataAgeDays: 0,
      },
    ]);
    expect(report.budget).toEqual({
      scope: `analytics@${new URL(h.sandbox.url).origin}`,
      requestsPerHour: 100,
      usedLastHour: 5,
      freeNow: 95,
      nextSlotAt: '2026-03-10T06:00:00Z',
    });
    expect(report.lastRun).toMatchObject({ command: `sync ${file}`, status: 'budget', exitCode: 75, summary: { windowsLoaded: 2, requests: 5 } });
    expect(report.spool).toEqual({ walks: 1, completedWalks: 0, inUse: 0, pages: 1, createdJobs: 0, sentMessages: 0 });
    // Each nightly run spends 6 requests first (the day that closes and the two still settling,
    // 2 pages each): the file's cap of 5 a run never gets to the backlog.
    expect(report).toMatchObject({ backlogWindows: 7, backlogRequests: 13, etaAt: '2026-03-10T06:00:00Z', dailyRequests: 6, runsLeft: null, backlogNeverDone: true, check: null });
    const shown = await h.run(['status', file, '--log-format', 'text']);
    expect(shown.stdout).toContain("warning: each nightly run spends about 6 requests on the day's new and settling windows first, as many as its cap or more");

    // At 10 an hour, 5 more go now and the other 8 an hour after the first five.
    expect((await status(['--requests-per-hour', '10'])).report).toMatchObject({ etaAt: '2026-03-10T07:00:02Z', budget: { freeNow: 5 } });
    // --max-requests caps each sync run before the file's maxRequestsPerRun: 13 at 8 a run, 6 of
    // each later run going on the day's windows first: the first run, then 5 left at 2 a run.
    expect((await status(['--max-requests', '8'])).report).toMatchObject({ runsLeft: 1 + 3, backlogNeverDone: false });
    // An hourly budget below the cap stops each cron run first: 13 at 7 a run (6 for the day), 6 left at 1 a run.
    expect((await status(['--max-requests', '8', '--requests-per-hour', '7'])).report).toMatchObject({ runsLeft: 1 + 6 });
    expect((await status(['--max-requests', '13'])).report).toMatchObject({ runsLeft: 1 });
    // Half an hour later at 5 an hour, the next slot frees when the first request is an hour old.
    h.clock.advance(HOUR / 2);
    expect((await status(['--requests-per-hour', '5'])).report.budget).toMatchObject({ usedLastHour: 5, freeNow: 0, nextSlotAt: '2026-03-10T07:00:02Z' });

    const text = await h.run(['status', file]);
    expect(text.stdout).toMatch(/backlog: 7 windows, about 13 requests; done by 2026-03-10T06:30:00Z at 100 requests\/h/);
    expect(text.stdout).toMatch(/spool: 1 page waiting in 1 walk/);
  });

  it('--format json writes the API\'s words in the last run\'s summary with C1 controls and bidirectional overrides escaped', async () => {
    h.sandbox.addFault({ kind: 'body', status: 403, match: { path: '/visitors' }, body: '{"error":"denied \\u009b31m\\u202eevil"}', times: Infinity });
    expect((await h.run(['sync', file])).code).toBe(1);
    const result = await h.run(['status', file, '--format', 'json']);
    expect(result.stdout).toContain('denied');
    expect(result.stdout).not.toMatch(/[\u0080-\u009f\u202e]/);
    expect(result.stdout).toContain('\\u009b31m\\u202eevil');
  });

  it('does not count settled windows as due, and estimates known windows at their own page count', async () => {
    expect((await h.run(['sync', file, '--max-requests', '100'])).code).toBe(0);
    h.clock.advance(3 * DAY); // every window fetched on the 10th is now settled up to 03-08
    const { report } = await status();
    expect(report.series[0]).toMatchObject({
      windowsPlanned: 12,
      windowsLoaded: 9,
      newestSettled: { start: '2026-03-07', end: '2026-03-08' },
      backlogWindows: 5, // 03-08 and 03-09 unsettled, 03-10..03-12 new
      backlogRequests: 10, // known windows at their own page count, new ones at the average
      dataAgeDays: 3,
    });
  });

  it('--check exits 1 for a series behind its newest closed window or with nothing loaded', async () => {
    await h.run(['sync', file]);
    expect((await status(['--check', '0'])).code).toBe(0);
    h.clock.advance(3 * DAY);
    const stale = await status(['--check', '2']);
    expect(stale.code).toBe(1);
    expect(stale.report.check).toEqual({ maxAgeDays: 2, stale: [{ projectId: 'docs', metric: 'visitors', grain: 'day', dataAgeDays: 3 }] });
    expect(asText(stale.stderr)).toMatch(/^docpipe: stale: visitors day of docs: newest complete window is 3 days behind \(limit 2\)$/m);
    // Today's window, fetched while it runs, does not hide the closed days missing before it.
    const today = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-13', '--to', '2026-03-14']);
    expect(today.code, today.stderr).toBe(0);
    const still = await status(['--check', '2']);
    expect(still.code).toBe(1);
    expect(still.report.check?.stale).toEqual([{ projectId: 'docs', metric: 'visitors', grain: 'day', dataAgeDays: 3 }]);
    const views = join(h.dir, 'views.json');
    writeFileSync(views, JSON.stringify({ projects: ['docs'], metrics: ['views'], start: '2026-03-01' }));
    const none = await h.run(['status', views, '--check', '5']);
    expect(none.code).toBe(1);
    expect(asText(none.stderr)).toMatch(/stale: views day of docs: no complete window loaded/);
    const bad = await h.run(['status', file, '--check', '-1']);
    expect(bad.code).toBe(2);
    expect(asText(bad.stderr).trim()).toBe("docpipe: invalid --check '-1': expected a whole number >= 0");
    const typo = await h.run(['status', file, '--check', 'two']);
    expect(typo.code).toBe(2);
    expect(asText(typo.stderr).trim()).toBe("docpipe: invalid --check 'two': expected a whole number >= 0");
  });

  it('without a pipeline file shows what the database holds, per grain', async () => {
    await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-09', '--window', 'week']);
    await h.run(['export', 'views', '--project', 'docs', '--from', '2026-03-08', '--to', '2026-03-10']);
    // The repository's pipelines/nightly.json still has the placeholder: it is not used.
    const result = await h.run(['status', '--format', 'json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as StatusReport;
    expect(report).toMatchObject({ pipeline: null, etaAt: null, runsLeft: null });
    expect(report.series.map((s) => [s.metric, s.grain, s.windowsLoaded, s.newestLoaded?.end])).toEqual([
      ['views', 'day', 2, '2026-03-10'],
      ['visitors', 'week', 1, '2026-03-09'],
    ]);
  });

  it('covers every endpoint: aggregates at each grain, event streams by day, and assistant threads left', async () => {
    const all = join(h.dir, 'all.json');
    writeFileSync(all, JSON.stringify({ projects: ['docs'], metrics: ['searches', 'assistant'], start: '2026-03-02', windows: ['week', 'day'] }));
    await h.run(['export', 'assistant', '--project', 'docs', '--from', '2026-03-07', '--to', '2026-03-09']);
    await h.run(['export', 'searches', '--project', 'docs', '--from', '2026-03-08', '--to', '2026-03-09']);
    const { report } = await (async () => {
      const result = await h.run(['status', all, '--format', 'json']);
      return { report: JSON.parse(result.stdout) as StatusReport };
    })();
    expect(report.series.map((s) => [s.metric, s.grain, s.windowsPlanned, s.windowsLoaded])).toEqual([
      ['searches', 'week', 1, 0],
      ['searches', 'day', 8, 1],
      ['assistant', 'day', 8, 2], // events: day windows only, whatever the grains
    ]);
    const [conversations] = await h.run(['query', 'SELECT count(DISTINCT thread_id) AS n FROM assistant_conversations', '--format', 'json']).then((r) =>
      r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { n: number }),
    );
    expect(conversations!.n).toBeGreaterThan(0);
    expect(report.threads).toEqual({ referenced: Number(conversations!.n), fetched: 0, spooled: 0, requestsLeft: Number(conversations!.n) });
    // A never-loaded series is estimated from the project's other windows at its own page size.
    const assistantDay = report.series.find((s) => s.metric === 'assistant')!;
    expect(assistantDay.backlogWindows).toBe(6);
    expect(assistantDay.backlogRequests).toBeGreaterThanOrEqual(6);
  });

  it('refuses a database that does not exist, naming it (exit 2)', async () => {
    const missing = join(h.dir, 'typo.duckdb');
    const result = await h.run(['status', file, '--db', missing]);
    expect(result.code).toBe(2);
    expect(asText(result.stderr)).toContain(missing);
  });
});

describe('backlog planners', () => {
  it('knows a window grain from its dates', () => {
    expect(grainOf({ start: '2026-03-09', end: '2026-03-10' })).toBe('day');
    expect(grainOf({ start: '2026-03-09', end: '2026-03-16' })).toBe('week');
    expect(grainOf({ start: '2026-03-10', end: '2026-03-17' })).toBe('range'); // not a Monday
    expect(grainOf({ start: '2026-02-01', end: '2026-03-01' })).toBe('month');
    expect(grainOf({ start: '2026-02-01', end: '2026-02-20' })).toBe('range');
  });
  it("a nightly run's own cost comes first: runs left count what is left of each run after it, and none when it takes the whole cap", () => {
    expect(planRunsLeft(0, 90, 10)).toBe(0);
    expect(planRunsLeft(90, 90, 10)).toBe(1);
    // 300 at 90 a run: the first run takes 90, each later one 80 (10 go on the day's windows).
    expect(planRunsLeft(300, 90, 10)).toBe(1 + Math.ceil(210 / 80));
    expect(planRunsLeft(300, 90, 0)).toBe(Math.ceil(300 / 90));
    expect(planRunsLeft(300, 90, 90)).toBeNull();
  });
  it.each([
    ['day', 2, 3],
    ['day', 0, 1],
    // A week is fetched when it closes and on the two days after: three walks a week.
    ['week', 2, 3 / 7],
    ['month', 2, 3 / (365.25 / 12)],
  ] as const)('a %s series with lookbackDays %i costs cron %d requests a day on average (one page a window): the windows that close and those still settling', (grain, lookbackDays, daily) => {
    const now = Date.parse('2026-03-10T06:00:00Z');
    const config = checkPipelineConfig({ projects: ['docs'], metrics: ['visitors'], start: '2025-09-01', window: grain, lookbackDays }).config!;
    const series = planSyncSeries(config, ['docs'], now);
    // Every window loaded, 100 rows each (one page).
    const known = series[0]!.windows.map((w) => ({ metric: 'visitors' as const, projectId: 'docs', start: w.start, end: w.end, fetchedAt: now, rowCount: 100 }));
    expect(planDailyRequests({ series, known, lookbackDays })).toBeCloseTo(daily, 6);
  });
  it('estimates pages from rows, an empty window costing one request', () => {
    expect([0, 1, 250, 251, 6000].map((rows) => pagesForRows(rows))).toEqual([1, 1, 1, 2, 24]);
    expect([0, 100, 101, 1000].map((rows) => pagesForRows(rows, 100))).toEqual([1, 1, 2, 10]);
    expect(pagesForRows(5000, null)).toBe(1); // an endpoint without paging: one request a window
  });
  it('falls back to the series average, then the project average, for windows never loaded', () => {
    const now = Date.parse('2026-03-10T06:00:00Z');
    const known = [
      { metric: 'views' as const, projectId: 'docs', start: '2026-03-01', end: '2026-03-02', fetchedAt: now, rowCount: 1000 },
      { metric: 'views' as const, projectId: 'docs', start: '2026-03-02', end: '2026-03-03', fetchedAt: now, rowCount: 500 },
    ];
    const windows = [{ start: '2026-03-05', end: '2026-03-06' }];
    const [views, visitors] = planSeriesStatus({
      series: [
        { projectId: 'docs', metric: 'views', grain: 'day', windows },
        { projectId: 'docs', metric: 'visitors', grain: 'day', windows },
      ],
      known,
      spooled: [],
      now,
      lookbackDays: 2,
    });
    expect(views?.backlogRequests).toBe(3); // (4 + 2) / 2
    expect(visitors?.backlogRequests).toBe(3); // the project's average
    // An endpoint without paging costs one request a window, whatever the project's other pages.
    // Feedback by page takes a limit, but has one page.
    const [callers, feedback] = planSeriesStatus({
      series: [
        { projectId: 'docs', metric: 'caller-stats', grain: 'day', windows },
        { projectId: 'docs', metric: 'feedback-by-page', grain: 'day', windows },
      ],
      known,
      spooled: [],
      now,
      lookbackDays: 2,
    });
    expect(callers?.backlogRequests).toBe(1);
    expect(feedback?.backlogRequests).toBe(1);
    // A walk the spool completed costs no request; an incomplete one, what its pages leave.
    const spooled = (completed: boolean) =>
      planSeriesStatus({
        series: [{ projectId: 'docs', metric: 'views', grain: 'day', windows }],
        known,
        spooled: [{ metric: 'views', projectId: 'docs', window: windows[0]!, pages: 2, completed }],
        now,
        lookbackDays: 2,
      })[0];
    expect(spooled(true)).toMatchObject({ backlogWindows: 1, backlogRequests: 0, spooledPages: 2 });
    expect(spooled(false)).toMatchObject({ backlogWindows: 1, backlogRequests: 1 });
  });
  it('counts as loaded the windows a pipeline plans, and every known window only without a pipeline', () => {
    const now = Date.parse('2026-03-10T06:00:00Z');
    const known = [
      { metric: 'visitors' as const, projectId: 'docs', start: '2026-03-01', end: '2026-03-02', fetchedAt: now, rowCount: 10 },
      { metric: 'visitors' as const, projectId: 'docs', start: '2026-03-02', end: '2026-03-03', fetchedAt: now, rowCount: 10 },
    ];
    const loaded = (windows: { start: string; end: string }[], onlyKnown?: boolean) =>
      planSeriesStatus({
        series: [{ projectId: 'docs', metric: 'visitors', grain: 'day', windows, ...(onlyKnown ? { onlyKnown } : {}) }],
        known,
        spooled: [],
        now,
        lookbackDays: 2,
      })[0]?.windowsLoaded;
    // A pipeline whose start moved past what is loaded plans no closed window yet: none of its windows is loaded.
    expect(loaded([])).toBe(0);
    expect(loaded([{ start: '2026-03-02', end: '2026-03-03' }, { start: '2026-03-03', end: '2026-03-04' }])).toBe(1);
    // No pipeline: the series is what the database holds.
    expect(loaded([], true)).toBe(2);
  });
  it('plans when a backlog is done at the hourly budget', () => {
    const now = 10 * HOUR;
    expect(planEta([], now, 100, 0)).toBe(now);
    expect(planEta([], now, 100, 100)).toBe(now);
    // An hour, and the margin for a server that stamped the request later (SLOT_MARGIN_MS).
    expect(planEta([], now, 100, 101)).toBe(now + HOUR + SLOT_MARGIN_MS);
    expect(planEta([], now, 100, 250)).toBe(now + 2 * (HOUR + SLOT_MARGIN_MS));
    // 3 used a quarter of an hour ago: the 3rd request past the free ones waits for them.
    const used = [now - HOUR / 4, now - HOUR / 4, now - HOUR / 4];
    expect(planEta(used, now, 5, 2)).toBe(now);
    expect(planEta(used, now, 5, 3)).toBe(now + (3 * HOUR) / 4 + SLOT_MARGIN_MS);
    expect(planEta([now - 2 * HOUR], now, 1, 1)).toBe(now); // older than an hour: forgotten
  });
});
