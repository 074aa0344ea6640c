/**
 * Every view of sql/views.sql and every query of sql/queries/ on a database built through the
 * sandbox (./analytics-fixture.ts), each result recomputed here from the base tables.
 */
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../cli/harness.js';
import { Database } from '../../src/load/database.js';
import { MISSING_WEEK, PROJECT, buildFixture, runQueryFile, select } from '../cli/analytics-fixture.js';

interface WindowRow {
  window_start: string;
  window_end: string;
  human: number;
  ai: number;
  total: number;
}
interface PageRow extends WindowRow {
  path: string;
}

const day = (value: unknown): string => (value instanceof Date ? value.toISOString() : String(value)).slice(0, 10);
const share = (ai: number, total: number): number | null => (total > 0 ? ai / total : null);

let h: Harness;
let visitorTotals: WindowRow[];
let viewTotals: WindowRow[];

async function totals(table: string): Promise<WindowRow[]> {
  const rows = await select(h, `SELECT window_start, window_end, human, ai, total FROM ${table} ORDER BY window_start, window_end`);
  return rows.map((r) => ({
    window_start: day(r.window_start),
    window_end: day(r.window_end),
    human: Number(r.human),
    ai: Number(r.ai),
    total: Number(r.total),
  }));
}

async function pages(table: string, start: string, end: string): Promise<PageRow[]> {
  const rows = await select(
    h,
    `SELECT path, window_start, window_end, human, ai, total FROM ${table} WHERE window_start = '${start}' AND window_end = '${end}'`,
  );
  return rows.map((r) => ({
    path: String(r.path),
    window_start: day(r.window_start),
    window_end: day(r.window_end),
    human: Number(r.human),
    ai: Number(r.ai),
    total: Number(r.total),
  }));
}

const daysBetween = (a: string, b: string): number => Math.round((Date.parse(b) - Date.parse(a)) / 86_400_000);

beforeAll(async () => {
  h = await buildFixture();
  visitorTotals = await totals('visitor_totals');
  viewTotals = await totals('view_totals');
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('views', () => {
  it('daily_site: one row per day window, with the AI share of visitors and of views', async () => {
    const rows = await select(h, 'SELECT * FROM daily_site ORDER BY day');
    const days = visitorTotals.filter((w) => daysBetween(w.window_start, w.window_end) === 1);
    expect(days).toHaveLength(38); // 02-01 .. 03-10
    expect(rows.map((r) => day(r.day))).toEqual(days.map((w) => w.window_start));
    for (const [i, w] of days.entries()) {
      const row = rows[i]!;
      expect(Number(row.visitors_total)).toBe(w.total);
      expect(Number(row.ai_share)).toBeCloseTo(share(w.ai, w.total)!, 4);
      const v = viewTotals.find((x) => x.window_start === w.window_start && x.window_end === w.window_end)!;
      expect(Number(row.views_total)).toBe(v.total);
      expect(Number(row.views_ai_share)).toBeCloseTo(share(v.ai, v.total)!, 4);
    }
    // Only today (fetched while running) is incomplete.
    expect(rows.filter((r) => r.complete === false).map((r) => day(r.day))).toEqual(['2026-03-10']);
    // The AI share varies from day to day: the column is not a constant.
    expect(new Set(rows.map((r) => r.ai_share)).size).toBeGreaterThan(5);
  });

  it('daily_page_views: the day rows of page_views with their AI share', async () => {
    const rows = await select(h, `SELECT * FROM daily_page_views WHERE day = '2026-03-03'`);
    const expected = await pages('page_views', '2026-03-03', '2026-03-04');
    expect(expected.length).toBeGreaterThan(250);
    expect(rows).toHaveLength(expected.length);
    const byPath = new Map(rows.map((r) => [String(r.path), r]));
    for (const p of expected) {
      const row = byPath.get(p.path)!;
      expect(Number(row.total)).toBe(p.total);
      if (p.total > 0) expect(Number(row.ai_share)).toBeCloseTo(share(p.ai, p.total)!, 4);
      else expect(row.ai_share).toBeNull();
    }
    const [count] = await select<{ n: bigint }>(h, 'SELECT count(DISTINCT day) AS n FROM daily_page_views');
    expect(Number(count!.n)).toBe(38); // day windows only: no week or month rows
  });

  it('weekly_site: weekly windows only, never a sum of days, the running week marked incomplete', async () => {
    const rows = await select(h, 'SELECT * FROM weekly_site ORDER BY week_start');
    const weeks = visitorTotals.filter((w) => daysBetween(w.window_start, w.window_end) === 7);
    expect(rows.map((r) => day(r.week_start))).toEqual(['2026-02-02', '2026-02-09', '2026-02-23', '2026-03-02', '2026-03-09']);
    expect(weeks.map((w) => w.window_start)).toEqual(rows.map((r) => day(r.week_start)));
    for (const [i, w] of weeks.entries()) {
      expect(Number(rows[i]!.visitors_total)).toBe(w.total);
      expect(Number(rows[i]!.ai_share)).toBeCloseTo(share(w.ai, w.total)!, 4);
    }
    // Uniques are not additive: the week is less than the sum of its days.
    const week = weeks.find((w) => w.window_start === '2026-03-02')!;
    const daySum = visitorTotals
      .filter((w) => daysBetween(w.window_start, w.window_end) === 1 && w.window_start >= '2026-03-02' && w.window_start < '2026-03-09')
      .reduce((n, w) => n + w.total, 0);
    expect(week.total).toBeLessThan(daySum);
    expect(rows.map((r) => r.complete)).toEqual([true, true, true, true, false]);
  });

  it('monthly_site: the monthly window of February only', async () => {
    const rows = await select(h, 'SELECT * FROM monthly_site');
    const month = visitorTotals.find((w) => w.window_start === '2026-02-01' && w.window_end === '2026-03-01')!;
    expect(rows).toHaveLength(1);
    expect(day(rows[0]!.month_start)).toBe('2026-02-01');
    expect(day(rows[0]!.month_end)).toBe('2026-03-01');
    expect(Number(rows[0]!.visitors_total)).toBe(month.total);
    expect(rows[0]!.complete).toBe(true);
  });

  it('latest_top_pages: no views figure from a views window fetched before it ended', async () => {
    const copy = join(h.dir, 'partial-views.duckdb');
    copyFileSync(h.db, copy);
    const edit = await h.run([
      'query', '--write', '--db', copy,
      `UPDATE loaded_windows SET fetched_at = TIMESTAMPTZ '2026-03-05 06:00:00+00'
        WHERE metric = 'views' AND window_start = '2026-03-02' AND window_end = '2026-03-09'`,
    ]);
    expect(edit.code, edit.stderr).toBe(0);
    const result = await h.run(['query', '--db', copy, '--format', 'json', `SELECT grain, views FROM latest_top_pages`]);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { grain: string; views: unknown });
    expect(rows.filter((r) => r.grain === 'week').map((r) => r.views)).toEqual(Array(10).fill(null));
    expect(rows.filter((r) => r.grain === 'day').every((r) => r.views !== null)).toBe(true);
  });

  it('latest_top_pages: the top 10 of the newest complete window of each grain, naming it', async () => {
    const rows = await select(h, 'SELECT * FROM latest_top_pages ORDER BY grain, rank');
    const windows = new Map<string, [string, string]>();
    for (const r of rows) windows.set(String(r.grain), [day(r.window_start), day(r.window_end)]);
    // Today and the running week were fetched before they ended: never picked.
    expect(Object.fromEntries(windows)).toEqual({
      day: ['2026-03-09', '2026-03-10'],
      week: ['2026-03-02', '2026-03-09'],
      month: ['2026-02-01', '2026-03-01'],
    });
    for (const [grain, [start, end]] of windows) {
      const expected = (await pages('page_visitors', start, end)).sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : 1)).slice(0, 10);
      const views = new Map((await pages('page_views', start, end)).map((p) => [p.path, p.total]));
      const got = rows.filter((r) => r.grain === grain);
      expect(got.map((r) => [Number(r.rank), r.path, Number(r.visitors)])).toEqual(expected.map((p, i) => [i + 1, p.path, p.total]));
      expect(got.map((r) => Number(r.views))).toEqual(expected.map((p) => views.get(p.path)));
    }
  });

  it('window_status names each window grain and completeness', async () => {
    const rows = await select(h, `SELECT grain, complete, count(*) AS n FROM window_status WHERE metric = 'visitors' GROUP BY ALL ORDER BY ALL`);
    expect(rows.map((r) => [r.grain, r.complete, Number(r.n)])).toEqual([
      ['day', false, 1],
      ['day', true, 37],
      ['month', true, 1],
      ['week', false, 1],
      ['week', true, 4],
    ]);
  });

  it('SHOW TABLES shows a reader the documented tables and views, and no staging table', async () => {
    const shown = (await select(h, 'SHOW TABLES')).map((r) => String(r.name)).sort();
    expect(shown).toEqual(
      [
        'agent_jobs', 'agent_messages', 'assistant_caller_stats', 'assistant_conversations', 'assistant_messages', 'assistant_threads',
        'daily_page_feedback', 'feedback', 'feedback_by_page', 'search_totals', 'searches', 'searches_without_clicks',
        'unanswered_questions', 'daily_page_views', 'daily_page_visitors', 'daily_site', 'docpipe_meta', 'flagged_rows',
        'latest_top_pages', 'loaded_windows', 'monthly_site', 'page_views', 'page_visitors', 'request_log', 'runs',
        'schema_version', 'site_windows', 'view_totals', 'visitor_totals', 'weekly_site', 'window_status',
      ].sort(),
    );
  });

  it('every table and view a reader sees carries a comment, and so do the columns of the views', async () => {
    const relations = await select(
      h,
      `SELECT table_name AS name, comment FROM duckdb_tables() WHERE database_name = current_database() AND NOT internal
       UNION ALL
       SELECT view_name, comment FROM duckdb_views() WHERE database_name = current_database() AND NOT internal`,
    );
    expect(relations.length).toBeGreaterThan(15);
    expect(relations.filter((r) => !r.comment).map((r) => r.name)).toEqual([]);
    const [undescribed] = await select<{ n: bigint }>(
      h,
      `SELECT count(*) AS n FROM duckdb_columns()
       WHERE database_name = current_database() AND comment IS NULL AND column_name <> 'project_id'
         AND table_name IN ('daily_site', 'weekly_site', 'monthly_site', 'latest_top_pages', 'site_windows')`,
    );
    expect(Number(undescribed!.n)).toBe(0);
    const [comment] = await select(h, `SELECT comment FROM duckdb_views() WHERE view_name = 'weekly_site'`);
    expect(String(comment!.comment)).toMatch(/weekly windows only/);
  });
});

describe('sql/queries', () => {
  it('every query file runs on the fixture', async () => {
    for (const file of readdirSync('sql/queries').filter((f) => f.endsWith('.sql'))) {
      const result = await h.run(['query', '--file', `sql/queries/${file}`, '--format', 'json']);
      expect(result.code, `${file}: ${result.stderr}`).toBe(0);
    }
  });

  it('top-pages.sql: the newest complete week, named in every row', async () => {
    const rows = await runQueryFile(h, 'top-pages.sql');
    expect(rows).toHaveLength(10);
    expect(new Set(rows.map((r) => `${r.grain} ${day(r.window_start)} ${day(r.window_end)}`))).toEqual(new Set(['week 2026-03-02 2026-03-09']));
    const expected = (await pages('page_visitors', '2026-03-02', '2026-03-09')).sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : 1));
    expect(rows.map((r) => r.path)).toEqual(expected.slice(0, 10).map((p) => p.path));
  });

  it('rising-ai-share.sql: pages whose AI share rose between the two newest complete weeks', async () => {
    const rows = await runQueryFile(h, 'rising-ai-share.sql');
    const cur = await pages('page_visitors', '2026-03-02', '2026-03-09');
    const prev = new Map((await pages('page_visitors', '2026-02-23', '2026-03-02')).map((p) => [p.path, p]));
    const expected = cur
      .flatMap((c) => {
        const p = prev.get(c.path);
        if (!p || c.total < 10 || p.total < 10) return [];
        const change = c.ai / c.total - p.ai / p.total;
        return change > 0 ? [{ path: c.path, change }] : [];
      })
      .sort((a, b) => b.change - a.change || (a.path < b.path ? -1 : 1))
      .slice(0, 20);
    expect(expected.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.path)).toEqual(expected.map((e) => e.path));
    for (const [i, e] of expected.entries()) expect(Number(rows[i]!.ai_share_change)).toBeCloseTo(e.change, 4);
    expect(new Set(rows.map((r) => `${day(r.previous_week)} ${day(r.week)}`))).toEqual(new Set(['2026-02-23 2026-03-02']));
  });

  it('new-and-vanished-pages.sql: pages present in one of the two newest complete weeks only', async () => {
    // Every page of the sandbox has visitors every week; on a copy of the database, one page
    // is removed from the newest week (vanished) and another from the week before (new).
    const copy = join(h.dir, 'churn.duckdb');
    copyFileSync(h.db, copy);
    const [gone, born] = (await pages('page_visitors', '2026-03-02', '2026-03-09')).map((p) => p.path).sort().slice(0, 2);
    const edit = await h.run([
      'query', '--write', '--db', copy,
      `DELETE FROM page_visitors WHERE (path = '${gone}' AND window_start = '2026-03-02' AND window_end = '2026-03-09')
         OR (path = '${born}' AND window_start = '2026-02-23' AND window_end = '2026-03-02')`,
    ]);
    expect(edit.code, edit.stderr).toBe(0);
    const result = await h.run(['query', '--db', copy, '--file', 'sql/queries/new-and-vanished-pages.sql', '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((r) => [r.change, r.path])).toEqual([['new', born], ['vanished', gone]]);
    expect(new Set(rows.map((r) => `${day(r.previous_week)} ${day(r.week)}`))).toEqual(new Set(['2026-02-23 2026-03-02']));
    expect(Number(rows[0]!.visitors)).toBe((await pages('page_visitors', '2026-03-02', '2026-03-09')).find((p) => p.path === born)!.total);
  });

  it('rising-ai-share.sql and new-and-vanished-pages.sql compare adjacent weeks only', async () => {
    // Without the week before the newest (02-23), the two newest complete weeks are 03-02 and
    // 02-09: a page's change over two weeks must not pass for a week's.
    const copy = join(h.dir, 'gap.duckdb');
    copyFileSync(h.db, copy);
    const edit = await h.run([
      'query', '--write', '--db', copy,
      `DELETE FROM loaded_windows WHERE metric = 'visitors' AND window_start = '2026-02-23' AND window_end = '2026-03-02';
       DELETE FROM page_visitors WHERE window_start = '2026-02-23' AND window_end = '2026-03-02'`,
    ]);
    expect(edit.code, edit.stderr).toBe(0);
    for (const file of ['rising-ai-share.sql', 'new-and-vanished-pages.sql']) {
      const result = await h.run(['query', '--db', copy, '--file', `sql/queries/${file}`, '--format', 'json']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim(), file).toBe('');
    }
    // The fixture itself has rows for both (so the empty answer above is the gap's doing).
    expect((await runQueryFile(h, 'rising-ai-share.sql')).length).toBeGreaterThan(0);
  });

  it('the prompt queries with window_days = 7 take ISO weeks, not a newer 7-day range window', async () => {
    const copy = join(h.dir, 'range7.duckdb');
    copyFileSync(h.db, copy);
    // Tuesday to Tuesday: 7 days, complete, and newer than the newest complete week (03-02).
    const range = await h.run(['export', 'visitors', '--project', PROJECT, '--db', copy, '--from', '2026-03-03', '--to', '2026-03-10', '--window', 'range', '--requests-per-hour', '100000']);
    expect(range.code, range.stderr + range.stdout).toBe(0);
    const weekly = join(h.dir, 'top-pages-weekly.sql');
    writeFileSync(weekly, readFileSync('sql/prompts/top-pages.sql', 'utf8').replace('SELECT 1 AS window_days', 'SELECT 7 AS window_days'));
    const result = await h.run(['query', '--db', copy, '--file', weekly, '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows).toHaveLength(10);
    expect(new Set(rows.map((r) => `${day(r.window_start)} ${day(r.window_end)}`))).toEqual(new Set(['2026-03-02 2026-03-09']));
  });

  it('rising-ai-share.sql lists the 20 that rose most in each project, not 20 in all', async () => {
    const one = await runQueryFile(h, 'rising-ai-share.sql');
    expect(one.length).toBeGreaterThan(10); // two projects' worth would pass 20
    const copy = join(h.dir, 'two-projects.duckdb');
    copyFileSync(h.db, copy);
    const twin = await h.run([
      'query', '--write', '--db', copy,
      `INSERT INTO loaded_windows BY NAME SELECT * REPLACE ('twin' AS project_id) FROM loaded_windows WHERE project_id = '${PROJECT}';
       INSERT INTO page_visitors BY NAME SELECT * REPLACE ('twin' AS project_id) FROM page_visitors WHERE project_id = '${PROJECT}'`,
    ]);
    expect(twin.code, twin.stderr).toBe(0);
    const result = await h.run(['query', '--db', copy, '--file', 'sql/queries/rising-ai-share.sql', '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const project of [PROJECT, 'twin']) {
      expect(rows.filter((r) => r.project_id === project).map((r) => r.path), project).toEqual(one.map((r) => r.path));
    }
  });

  it('new-and-vanished-pages.sql agrees with the raw tables of the fixture', async () => {
    const rows = await runQueryFile(h, 'new-and-vanished-pages.sql');
    const present = async (start: string, end: string): Promise<Set<string>> =>
      new Set((await pages('page_visitors', start, end)).filter((p) => p.total > 0).map((p) => p.path));
    const cur = await present('2026-03-02', '2026-03-09');
    const prev = await present('2026-02-23', '2026-03-02');
    const added = [...cur].filter((p) => !prev.has(p)).sort();
    const vanished = [...prev].filter((p) => !cur.has(p)).sort();
    expect(rows.filter((r) => r.change === 'new').map((r) => r.path).sort()).toEqual(added);
    expect(rows.filter((r) => r.change === 'vanished').map((r) => r.path).sort()).toEqual(vanished);
  });

  it('week-over-week.sql: weekly windows only, with a note for the missing and the partial week', async () => {
    const rows = await runQueryFile(h, 'week-over-week.sql');
    expect(rows.map((r) => day(r.week_start))).toEqual(['2026-02-02', '2026-02-09', MISSING_WEEK, '2026-02-23', '2026-03-02', '2026-03-09']);
    const byWeek = new Map(rows.map((r) => [day(r.week_start), r]));
    expect(byWeek.get(MISSING_WEEK)).toMatchObject({ visitors_total: null, note: expect.stringMatching(/no weekly window loaded/) });
    expect(byWeek.get('2026-02-23')).toMatchObject({ previous_visitors: null, note: expect.stringMatching(/week before/) });
    expect(byWeek.get('2026-03-09')!.note).toMatch(/partial/);
    // A partial week's figures are not compared with a whole week's.
    expect(byWeek.get('2026-03-09')).toMatchObject({ visitors_change_pct: null, ai_share_change: null, views_change_pct: null });
    expect(byWeek.get('2026-03-02')!.note).toBeNull();
    const weekly = (start: string): WindowRow => visitorTotals.find((w) => w.window_start === start && daysBetween(w.window_start, w.window_end) === 7)!;
    const [a, b] = [weekly('2026-02-23'), weekly('2026-03-02')];
    expect(Number(byWeek.get('2026-03-02')!.previous_visitors)).toBe(a.total);
    expect(Number(byWeek.get('2026-03-02')!.visitors_change_pct)).toBeCloseTo((100 * (b.total - a.total)) / a.total, 1);
  });

  it('week-over-week.sql: no change figure against a week before that was fetched before it ended', async () => {
    const copy = join(h.dir, 'partial-before.duckdb');
    copyFileSync(h.db, copy);
    const edit = await h.run([
      'query', '--write', '--db', copy,
      `UPDATE loaded_windows SET fetched_at = TIMESTAMPTZ '2026-02-25 06:00:00+00' WHERE window_start = '2026-02-23' AND window_end = '2026-03-02'`,
    ]);
    expect(edit.code, edit.stderr).toBe(0);
    const result = await h.run(['query', '--db', copy, '--file', 'sql/queries/week-over-week.sql', '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const week = rows.find((r) => day(r.week_start) === '2026-03-02')!;
    expect(week).toMatchObject({ complete: true, visitors_change_pct: null, ai_share_change: null, views_change_pct: null });
    expect(week.note).toMatch(/the week before was fetched before it ended/);
  });

  it('week-over-week.sql: a week with page views but no visitors window is noted as missing its visitors window', async () => {
    const copy = join(h.dir, 'views-only-week.duckdb');
    copyFileSync(h.db, copy);
    const week = `window_start = '2026-02-23' AND window_end = '2026-03-02'`;
    const edit = await h.run([
      'query', '--write', '--db', copy,
      `DELETE FROM loaded_windows WHERE metric = 'visitors' AND ${week}; DELETE FROM visitor_totals WHERE ${week}; DELETE FROM page_visitors WHERE ${week}`,
    ]);
    expect(edit.code, edit.stderr).toBe(0);
    const result = await h.run(['query', '--db', copy, '--file', 'sql/queries/week-over-week.sql', '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    const rows = new Map(result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).map((r) => [day(r.week_start), r]));
    expect(rows.get('2026-02-23')).toMatchObject({ visitors_total: null, note: expect.stringMatching(/no weekly window loaded: export visitors --window week/) });
    expect(Number(rows.get('2026-02-23')!.views_total)).toBeGreaterThan(0); // its page views are still shown
    expect(rows.get('2026-03-02')!.note).toMatch(/no weekly window for the week before/);
  });

  it('a page listed with a count the API did not give (NULL) has not vanished: new-and-vanished-pages.sql and the vanished-pages prompt', async () => {
    const copy = join(h.dir, 'null-count.duckdb');
    copyFileSync(h.db, copy);
    // The newest complete week (03-02) and day (03-09), and the page with most visitors the week and the day before.
    const [weekly] = await pages('page_visitors', '2026-02-23', '2026-03-02').then((rows) => rows.sort((a, b) => b.total - a.total));
    const [daily] = await pages('page_visitors', '2026-03-08', '2026-03-09').then((rows) => rows.sort((a, b) => b.total - a.total));
    expect(daily!.total).toBeGreaterThanOrEqual(50); // vanished-pages.sql's floor
    const edit = await h.run([
      'query', '--write', '--db', copy,
      `UPDATE page_visitors SET total = NULL, flags = 'count_missing'
        WHERE (path = '${weekly!.path}' AND window_start = '2026-03-02' AND window_end = '2026-03-09')
           OR (path = '${daily!.path}' AND window_start = '2026-03-09' AND window_end = '2026-03-10')`,
    ]);
    expect(edit.code, edit.stderr).toBe(0);
    for (const file of ['sql/queries/new-and-vanished-pages.sql', 'sql/prompts/vanished-pages.sql']) {
      const result = await h.run(['query', '--db', copy, '--file', file, '--format', 'json']);
      expect(result.code, result.stderr).toBe(0);
      const paths = result.stdout.trim().split('\n').filter(Boolean).map((l) => String((JSON.parse(l) as { path: string }).path));
      expect(paths, file).not.toContain(file.includes('prompts') ? daily!.path : weekly!.path);
    }
  });

  it('negative-feedback-pages.sql relates thumbs down to readers over the days whose visitors are loaded only', async () => {
    const copy = join(h.dir, 'feedback.duckdb');
    copyFileSync(h.db, copy);
    const [page] = await pages('page_visitors', '2026-03-08', '2026-03-09');
    const feedback = (id: string, dayStart: string): string =>
      `('${PROJECT}', '${id}', DATE '${dayStart}', DATE '${dayStart}' + 1, '${page!.path}', 'contextual', false, 'r')`;
    // One thumbs down on a loaded day, one on a day with no visitor data (after the fixture's last day).
    const edit = await h.run([
      'query', '--write', '--db', copy,
      `INSERT INTO feedback (project_id, id, window_start, window_end, path, source, helpful, run_id)
       VALUES ${feedback('fb-1', '2026-03-08')}, ${feedback('fb-2', '2026-03-20')}`,
    ]);
    expect(edit.code, edit.stderr).toBe(0);
    const result = await h.run(['query', '--db', copy, '--file', 'sql/queries/negative-feedback-pages.sql', '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    const row = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => r.path === page!.path)!;
    expect(row).toMatchObject({ thumbs_down: 2, days_with_feedback: 2 });
    expect(Number(row.negative_per_1000_visitor_days)).toBeCloseTo(1000 / page!.total, 2);
  });

  it('the prompt queries take only complete windows: not today, fetched while it ran', async () => {
    // The fixture's newest day (2026-03-10) was fetched at 06:00 that day: partial counts.
    const top = await runQueryFile(h, '../prompts/top-pages.sql');
    expect(new Set(top.map((r) => day(r.window_start)))).toEqual(new Set(['2026-03-09']));
    const vanished = await runQueryFile(h, '../prompts/vanished-pages.sql');
    for (const r of vanished) expect(day(r.newest_window_start)).toBe('2026-03-09');
    const rising = await runQueryFile(h, '../prompts/ai-share-rising.sql');
    for (const r of rising) expect(day(r.week_start)).toBe('2026-03-02'); // the week of 03-09 is running
  });

  it('job-success-rate.sql: outcomes and rates from the ledger', async () => {
    // A job sent a follow-up message runs again and keeps its link: no finished job, no PR share.
    const running = { project_id: PROJECT, prompt_key: 'follow-up', prompt: 'x', status: 'active', pr_link: 'https://github.com/acme/docs/pull/9' };
    await Database.with(h.db, {}, (db) =>
      db.run(`INSERT INTO agent_jobs (project_id, prompt_key, prompt, status, pr_link, attempts, polls, updated_at)
              VALUES ($project_id, $prompt_key, $prompt, $status, $pr_link, 1, 1, now())`, running),
    );
    // A status the API does not document is followed like active: running.
    const odd = { ...running, prompt_key: 'odd-status', status: 'cancelled', pr_link: null };
    await Database.with(h.db, {}, (db) =>
      db.run(`INSERT INTO agent_jobs (project_id, prompt_key, prompt, status, pr_link, attempts, polls, updated_at)
              VALUES ($project_id, $prompt_key, $prompt, $status, $pr_link, 1, 1, now())`, odd),
    );
    const rows = await runQueryFile(h, 'job-success-rate.sql');
    await Database.with(h.db, {}, (db) => db.run(`DELETE FROM agent_jobs WHERE prompt_key IN ('follow-up', 'odd-status')`));
    const jobs = [...(await select(h, 'SELECT status, pr_link FROM agent_jobs')), running, odd];
    const count = (f: (j: (typeof jobs)[number]) => boolean): number => jobs.filter(f).length;
    const finished = count((j) => ['completed', 'failed', 'archived', 'rejected'].includes(String(j.status)));
    expect(finished).toBe(5);
    expect(rows).toEqual([
      expect.objectContaining({
        project_id: PROJECT,
        prompts: jobs.length,
        completed: count((j) => j.status === 'completed'),
        with_pr: count((j) => j.status === 'completed' && j.pr_link !== null),
        failed: count((j) => j.status === 'failed'),
        archived: count((j) => j.status === 'archived'),
        finished,
        success_rate: expect.closeTo(count((j) => j.status === 'completed') / finished, 4),
        pr_rate: expect.closeTo(count((j) => j.pr_link !== null && ['completed', 'failed', 'archived', 'rejected'].includes(String(j.status))) / finished, 4),
      }),
    ]);
    expect(rows[0]).toMatchObject({ completed: 3, failed: 1, archived: 1 });
    // Every prompt is in one bucket: the follow-up and the undocumented status are running.
    const [r] = rows as { running: number; unresolved: number; finished: number; prompts: number }[];
    expect(r!.running).toBe(count((j) => !['completed', 'failed', 'archived', 'rejected', 'unknown', 'timed_out'].includes(String(j.status))));
    expect(r!.running).toBeGreaterThanOrEqual(2);
    expect(r!.running + r!.unresolved + r!.finished).toBe(r!.prompts);
  });
});
