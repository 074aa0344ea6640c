/**
 * `docpipe report` on a database built through the sandbox: the page's content against the
 * database, then the page in a real headless browser (Debian's chromium, playwright-core).
 */
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MISSING_WEEK, PROJECT, buildFixture, select } from '../cli/analytics-fixture.js';
import { summaryOf, type Harness } from '../cli/harness.js';
import { COLORS } from '../../src/report/charts.js';

const CHARTS = ['visitors', 'ai-share', 'top-pages', 'views-vs-visitors', 'week-over-week', 'jobs'];
/** Where the screenshot is kept for a human to look at (outside the repository). */
export const SCREENSHOT = join(tmpdir(), 'docpipe-report.png');

let h: Harness;
let reportPath: string;
let html: string;

/** The text of the cells of the table under a chart, row by row. */
function tableOf(chart: string): string[][] {
  const figure = new RegExp(`<figure class="chart" id="${PROJECT}-${chart}"[\\s\\S]*?</figure>`).exec(html)?.[0] ?? '';
  return [...figure.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].slice(1).map((m) => [...m[1]!.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((c) => c[1]!));
}

beforeAll(async () => {
  h = await buildFixture({ paths: 60 });
  reportPath = join(h.dir, 'out', 'report.html');
  const result = await h.run(['report', '--out', reportPath]);
  expect(result.code, result.stderr).toBe(0);
  // Tuesday 2026-03-10: the last 30 days end today, exclusive.
  expect(summaryOf(result)).toMatchObject({ path: reportPath, from: '2026-02-08', to: '2026-03-10', last: '30d', projects: [PROJECT] });
  html = readFileSync(reportPath, 'utf8');
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('docpipe report', () => {
  it('is the same page when made again in the same process, each chart with ids of its own', async () => {
    const again = join(h.dir, 'out', 'again.html');
    const result = await h.run(['report', '--out', again]);
    expect(result.code, result.stderr).toBe(0);
    const text = readFileSync(again, 'utf8');
    expect(text).toBe(html);
    const ids = [...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids.filter((id) => id?.startsWith('zr')).length).toBeGreaterThan(CHARTS.length - 1);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('is one self-contained page: every chart an inline SVG, no script, nothing fetched', () => {
    for (const chart of CHARTS) {
      expect(html, chart).toMatch(new RegExp(`<figure class="chart" id="${PROJECT}-${chart}"[\\s\\S]*?<svg[\\s\\S]*?</svg>[\\s\\S]*?<table>`));
    }
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\((?!#)/i); // url(#clip) is in-page
    expect(html).not.toMatch(/\s(src|href)=/i);
  });

  it('the daily tables are daily_site, newest first', async () => {
    const rows = await select(h, `SELECT strftime(day, '%Y-%m-%d') AS day, visitors_human, visitors_ai, visitors_total, views_total FROM daily_site WHERE day < '2026-03-10' ORDER BY day DESC LIMIT 7`);
    const fmt = (v: unknown): string => Number(v).toLocaleString('en-US');
    expect(tableOf('visitors')).toEqual(rows.map((r) => [String(r.day), fmt(r.visitors_human), fmt(r.visitors_ai), fmt(r.visitors_total)]));
    expect(tableOf('views-vs-visitors').map((r) => r.slice(0, 3))).toEqual(rows.map((r) => [String(r.day), fmt(r.views_total), fmt(r.visitors_total)]));
  });

  it('names the window of the top pages, the newest complete week, and lists its top 10', async () => {
    expect(html).toContain('Top pages of 2026-03-02 .. 2026-03-09 (week window)');
    const top = await select(h, `SELECT path FROM latest_top_pages WHERE grain = 'week' ORDER BY rank`);
    expect(tableOf('top-pages').map((r) => r[1])).toEqual(top.map((r) => String(r.path)));
  });

  it('week over week comes from weekly windows, with a note on the missing week', async () => {
    const weeks = tableOf('week-over-week');
    expect(weeks.map((w) => w[0])).toEqual([
      '2026-02-02 .. 2026-02-09',
      '2026-02-09 .. 2026-02-16',
      `${MISSING_WEEK} .. 2026-02-23`,
      '2026-02-23 .. 2026-03-02',
      '2026-03-02 .. 2026-03-09',
      '2026-03-09 .. 2026-03-16',
    ]);
    const [w] = await select(h, `SELECT visitors_total FROM weekly_site WHERE week_start = '2026-03-02'`);
    expect(weeks[4]![1]).toBe(Number(w!.visitors_total).toLocaleString('en-US'));
    expect(weeks[2]![1]).toBe('–');
    expect(weeks[2]![4]).toMatch(/no weekly window loaded/);
    expect(html).toContain(`Missing weeks (no weekly window loaded): ${MISSING_WEEK}`);
  });

  it('job outcomes: counts per status and the success rate', async () => {
    const jobs = await select(h, `SELECT status, count(*) AS n FROM agent_jobs GROUP BY status ORDER BY n DESC, status`);
    expect(tableOf('jobs').map((r) => [r[0], r[1]])).toEqual(jobs.map((j) => [String(j.status), String(j.n)]));
    expect(html).toContain('Success rate 60% of 5 finished jobs');
  });

  it('--from/--to picks another range; bad input is a one-line usage error', async () => {
    const out = join(h.dir, 'feb.html');
    const feb = await h.run(['report', '--out', out, '--from', '2026-02-01', '--to', '2026-03-01']);
    expect(feb.code, feb.stderr).toBe(0);
    const page = readFileSync(out, 'utf8');
    expect(page).toContain('Range 2026-02-01 .. 2026-03-01');
    expect(page).not.toContain('<td>2026-03-0');
    for (const [args, message] of [
      [['--last', '30'], /invalid --last '30'/],
      [['--last', '7d', '--to', '2026-03-01'], /either --last 7d or --from\/--to/],
      [['--from', '2026-02-30', '--to', '2026-03-01'], /invalid --from '2026-02-30'/],
    ] as const) {
      const bad = await h.run(['report', '--out', join(h.dir, 'bad.html'), ...args]);
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
      expect(bad.stderr).toMatch(message);
    }
    expect(existsSync(join(h.dir, 'bad.html'))).toBe(false);
  });

  it('takes the top pages of a window within its range: February\'s report shows February\'s month, not a later week', async () => {
    const out = join(h.dir, 'february.html');
    const result = await h.run(['report', '--from', '2026-02-01', '--to', '2026-03-01', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    const page = readFileSync(out, 'utf8');
    expect(page).toContain('Top pages of 2026-02-01 .. 2026-03-01 (month window)');
    expect(page).not.toContain('Top pages of 2026-03-02');
  });

  it('a top page whose count the API did not give (stored NULL, flagged) shows it as missing, not as 0', async () => {
    const copy = join(h.dir, 'null-count.duckdb');
    copyFileSync(h.db, copy);
    const [top] = await select(h, `SELECT path FROM latest_top_pages WHERE grain = 'week' AND rank = 1`);
    const edit = await h.run(['query', '--write', '--db', copy,
      `UPDATE page_visitors SET human = NULL, flags = 'count_missing' WHERE path = '${String(top!.path)}' AND window_start = '2026-03-02' AND window_end = '2026-03-09'`]);
    expect(edit.code, edit.stderr).toBe(0);
    const out = join(h.dir, 'null-count.html');
    const result = await h.run(['report', '--db', copy, '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    const saved = html;
    html = readFileSync(out, 'utf8');
    const row = tableOf('top-pages').find((r) => r[1] === String(top!.path))!;
    html = saved;
    expect(row[3]).toBe('–');
  });

  it('a range in the past gets its own newest complete window\'s top pages, though newer windows of that grain are loaded', async () => {
    const out = join(h.dir, 'week-of-feb-9.html');
    const result = await h.run(['report', '--from', '2026-02-09', '--to', '2026-02-16', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    html = readFileSync(out, 'utf8');
    expect(html).toContain('Top pages of 2026-02-09 .. 2026-02-16 (week window)');
    const top = await select(h, `SELECT path FROM top_pages_within(DATE '2026-02-09', DATE '2026-02-16') WHERE grain = 'week' ORDER BY rank`);
    expect(top).toHaveLength(10);
    expect(tableOf('top-pages').map((r) => r[1])).toEqual(top.map((r) => String(r.path)));
    // The same ranking latest_top_pages gives for the newest week.
    const [newest] = await select(h, `SELECT count(*) AS n FROM latest_top_pages l JOIN top_pages_within(DATE '2026-03-02', DATE '2026-03-09') t USING (project_id, grain, rank, path, visitors)`);
    expect(Number(newest!.n)).toBe(10);
    html = readFileSync(reportPath, 'utf8');
  });
});

describe('the database the report reads', () => {
  it('brings views left by an older release up to date before reading; a missing file is a usage error', async () => {
    const copy = join(h.dir, 'older.duckdb');
    copyFileSync(h.db, copy);
    const older = await h.run(['query', '--write', '--db', copy, `DROP VIEW latest_top_pages; UPDATE docpipe_meta SET value = 'older' WHERE key = 'views_sha256'`]);
    expect(older.code, older.stderr).toBe(0);
    const out = join(h.dir, 'older.html');
    const result = await h.run(['report', '--db', copy, '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('Top pages of 2026-03-02 .. 2026-03-09 (week window)');

    const missing = await h.run(['report', '--db', join(h.dir, 'nope.duckdb'), '--out', join(h.dir, 'nope.html')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/database '.*nope\.duckdb' does not exist/);
    expect(existsSync(join(h.dir, 'nope.duckdb'))).toBe(false);
  });

  it('names the days the visitors chart has no day window for, views loaded for them or not', async () => {
    const copy = join(h.dir, 'gaps.duckdb');
    copyFileSync(h.db, copy);
    // 03-03 and 03-04 keep their views; 03-06 loses both metrics.
    const cut = await h.run(['query', '--write', '--db', copy,
      `DELETE FROM visitor_totals WHERE window_end = window_start + 1 AND window_start IN ('2026-03-03', '2026-03-04', '2026-03-06');
       DELETE FROM view_totals WHERE window_end = window_start + 1 AND window_start = '2026-03-06'`]);
    expect(cut.code, cut.stderr).toBe(0);
    const out = join(h.dir, 'gaps.html');
    const result = await h.run(['report', '--db', copy, '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('Missing days (no visitors day window loaded, drawn as gaps): 2026-03-03 .. 2026-03-04, 2026-03-06.');
  });
});

describe('the report in a headless browser', () => {
  it('renders every chart as an SVG with marks, with no console error and no request leaving the page', async () => {
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 900, height: 1200 } });
      const problems: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      page.on('request', (r) => requests.push(r.url()));
      const url = pathToFileURL(reportPath).href;
      await page.goto(url, { waitUntil: 'load' });
      const colors = Object.values(COLORS).filter((c) => c !== COLORS.missing);
      const charts = await page.$$eval('figure.chart', (figures, seriesColors) =>
        figures.map((f) => {
          const svg = f.querySelector('svg');
          const box = svg?.getBoundingClientRect();
          return {
            chart: f.getAttribute('data-chart'),
            // Marks: shapes drawn in a series colour, not the legend's (placed with a transform).
            marks: svg
              ? [...svg.querySelectorAll('path, rect, circle')].filter(
                  (e) => !e.hasAttribute('transform') && seriesColors.some((c) => e.getAttribute('fill') === c || e.getAttribute('stroke') === c),
                ).length
              : 0,
            width: box?.width ?? 0,
            height: box?.height ?? 0,
            rows: f.querySelectorAll('tbody tr').length,
          };
        }),
        colors,
      );
      expect(charts.map((c) => c.chart)).toEqual(CHARTS);
      for (const c of charts) {
        expect(c.marks, String(c.chart)).toBeGreaterThan(0);
        expect(c.width, String(c.chart)).toBeGreaterThan(300);
        expect(c.height, String(c.chart)).toBeGreaterThan(150);
        expect(c.rows, String(c.chart)).toBeGreaterThan(0);
      }
      const marks = Object.fromEntries(charts.map((c) => [c.chart, c.marks]));
      // A line per series; a bar per page and series (10 pages, human and AI); a bar per loaded week.
      expect(marks.visitors).toBeGreaterThanOrEqual(3);
      expect(marks['top-pages']).toBeGreaterThanOrEqual(20);
      expect(marks['week-over-week']).toBe(5); // the five weekly windows; the missing week has none
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(problems).toEqual([]);
      expect(requests).toEqual([url]);
    } finally {
      await browser.close();
    }
    expect(readFileSync(SCREENSHOT).subarray(1, 4).toString()).toBe('PNG');
  });
});
