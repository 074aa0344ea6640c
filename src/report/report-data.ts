/**
 * What the report shows, read from the database's views and ready-made queries (sql/), so
 * that the page and an analyst's SQL agree: daily_site, top_pages_within (latest_top_pages), weekly_site through
 * sql/queries/week-over-week.sql, and sql/queries/job-success-rate.sql.
 */
import type { Executor } from '../load/database.js';
import { addDays, alignUp, planWindows } from '../extract/windows.js';
import { readSqlFile } from '../load/sql-files.js';

export interface DailyPoint {
  day: string;
  visitorsHuman: number | null;
  visitorsAi: number | null;
  visitorsTotal: number | null;
  aiShare: number | null;
  viewsTotal: number | null;
  complete: boolean;
  /** No day window loaded for it (a gap between loaded days): drawn as a gap, named on the page. */
  missing?: true;
}

export interface TopPage {
  rank: number;
  path: string;
  /** Null where the API gave no count (stored NULL, flagged): shown as missing, never as 0. */
  visitors: number | null;
  human: number | null;
  ai: number | null;
  aiShare: number | null;
  views: number | null;
}

export interface TopPages {
  grain: string;
  windowStart: string;
  windowEnd: string;
  pages: TopPage[];
}

export interface WeekPoint {
  weekStart: string;
  weekEnd: string;
  visitorsTotal: number | null;
  visitorsChangePct: number | null;
  aiShare: number | null;
  /** False for a week fetched before it ended (partial counts); null when not loaded. */
  complete: boolean | null;
  note: string | null;
}

export interface JobOutcomes {
  /** Prompts per status, most frequent first. */
  byStatus: { status: string; jobs: number; withPr: number }[];
  successRate: number | null;
  prRate: number | null;
  finished: number;
}

export interface ProjectReport {
  projectId: string;
  daily: DailyPoint[];
  topPages: TopPages | null;
  weeks: WeekPoint[];
  jobs: JobOutcomes;
}

export interface ReportData {
  from: string;
  to: string;
  last?: string;
  generatedAt: string;
  projects: ProjectReport[];
}

type Raw = Record<string, unknown>;

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string => String(v);

/** A query file of sql/queries/ as a subquery (its trailing `;` removed). */
function queryFile(name: string): string {
  return readSqlFile(`queries/${name}`).trim().replace(/;\s*$/, '');
}

async function listProjects(db: Executor): Promise<string[]> {
  const rows = await db.all(
    `SELECT project_id FROM visitor_totals UNION SELECT project_id FROM view_totals
     UNION SELECT project_id FROM agent_jobs ORDER BY 1`,
  );
  return rows.map((r) => str(r.project_id));
}

async function readDaily(db: Executor, project: string, from: string, to: string): Promise<DailyPoint[]> {
  const rows = await db.all(
    `SELECT strftime(day, '%Y-%m-%d') AS day, visitors_human, visitors_ai, visitors_total,
            CAST(ai_share AS DOUBLE) AS ai_share, views_total, complete
     FROM daily_site
     WHERE project_id = $project AND day >= CAST($from AS DATE) AND day < CAST($to AS DATE)
     ORDER BY day`,
    { project, from, to },
  );
  return withGaps(
    rows.map((r: Raw) => ({
      day: str(r.day),
      visitorsHuman: num(r.visitors_human),
      visitorsAi: num(r.visitors_ai),
      visitorsTotal: num(r.visitors_total),
      aiShare: num(r.ai_share),
      viewsTotal: num(r.views_total),
      complete: r.complete === true,
    })),
  );
}

/**
 * Pure: the loaded days (ascending) with every day between them that is not loaded put in as
 * a missing point, so that a chart's axis is the calendar and never joins two days across a gap.
 */
export function withGaps(daily: readonly DailyPoint[]): DailyPoint[] {
  const out: DailyPoint[] = [];
  for (const point of daily) {
    const last = out.at(-1);
    for (let day = last ? addDays(last.day, 1) : point.day; day < point.day; day = addDays(day, 1)) {
      out.push({ day, visitorsHuman: null, visitorsAi: null, visitorsTotal: null, aiShare: null, viewsTotal: null, complete: false, missing: true });
    }
    out.push(point);
  }
  return out;
}

/** Pure: runs of consecutive missing days, as `start` or `start .. end` (inclusive). */
export function missingDayRuns(daily: readonly DailyPoint[]): string[] {
  const runs: string[] = [];
  let first: string | undefined;
  let previous: string | undefined;
  for (const point of [...daily, undefined]) {
    if (point?.missing) {
      first ??= point.day;
      previous = point.day;
      continue;
    }
    if (first !== undefined) runs.push(first === previous ? first : `${first} .. ${previous}`);
    first = undefined;
  }
  return runs;
}

/**
 * The newest complete window's top pages, of a window within the report's range [from, to)
 * (top_pages_within, the macro latest_top_pages is made of); a longer window is preferred to a
 * single day. None when the range holds no complete visitors window.
 */
async function readTopPages(db: Executor, project: string, from: string, to: string): Promise<TopPages | null> {
  const rows = await db.all(
    `WITH top AS MATERIALIZED (
       SELECT * FROM top_pages_within($from::DATE, $to::DATE) WHERE project_id = $project
     ), pick AS (
       SELECT DISTINCT grain, window_start, window_end FROM top
       QUALIFY row_number() OVER (ORDER BY grain = 'day', window_end DESC, window_end - window_start DESC) = 1
     )
     SELECT t.grain, strftime(t.window_start, '%Y-%m-%d') AS window_start, strftime(t.window_end, '%Y-%m-%d') AS window_end,
            t.rank, t.path, t.visitors, t.human, t.ai, CAST(t.ai_share AS DOUBLE) AS ai_share, t.views
     FROM top t JOIN pick USING (grain, window_start, window_end)
     ORDER BY t.rank`,
    { project, from, to },
  );
  const first = rows[0];
  if (!first) return null;
  return {
    grain: str(first.grain),
    windowStart: str(first.window_start),
    windowEnd: str(first.window_end),
    pages: rows.map((r: Raw) => ({
      rank: Number(r.rank),
      path: str(r.path),
      visitors: num(r.visitors),
      human: num(r.human),
      ai: num(r.ai),
      aiShare: num(r.ai_share),
      views: num(r.views),
    })),
  };
}

async function readWeeks(db: Executor, project: string, from: string, to: string): Promise<WeekPoint[]> {
  const rows = await db.all(
    `SELECT strftime(week_start, '%Y-%m-%d') AS week_start, strftime(week_end, '%Y-%m-%d') AS week_end,
            visitors_total, CAST(visitors_change_pct AS DOUBLE) AS visitors_change_pct,
            CAST(ai_share AS DOUBLE) AS ai_share, complete, note
     FROM (${queryFile('week-over-week.sql')})
     WHERE project_id = $project AND week_end > CAST($from AS DATE) AND week_start < CAST($to AS DATE)
     ORDER BY week_start`,
    { project, from, to },
  );
  const loaded: WeekPoint[] = rows.map((r: Raw) => ({
    weekStart: str(r.week_start),
    weekEnd: str(r.week_end),
    visitorsTotal: num(r.visitors_total),
    visitorsChangePct: num(r.visitors_change_pct),
    aiShare: num(r.ai_share),
    complete: typeof r.complete === 'boolean' ? r.complete : null,
    note: r.note === null ? null : str(r.note),
  }));
  // The week-over-week query lists the gaps between loaded weeks; the weeks of the range
  // before the first or after the last loaded one are missing too.
  const missing = wholeWeeks(from, to)
    .filter((w) => !loaded.some((l) => l.weekStart === w.start))
    .map((w) => ({ weekStart: w.start, weekEnd: w.end, visitorsTotal: null, visitorsChangePct: null, aiShare: null, complete: null, note: MISSING_WEEK }));
  return [...loaded, ...missing].sort((a, b) => (a.weekStart < b.weekStart ? -1 : 1));
}

export const MISSING_WEEK = 'no weekly window loaded: export visitors --window week';

/** The ISO weeks that lie wholly inside [from, to). */
export function wholeWeeks(from: string, to: string): { start: string; end: string }[] {
  const start = alignUp(from, 'week');
  const weeks = start < to ? planWindows(start, alignUp(to, 'week'), 'week') : [];
  return weeks.filter((w) => w.end <= to);
}

async function readJobs(db: Executor, project: string): Promise<JobOutcomes> {
  const byStatus = await db.all(
    `SELECT status, count(*) AS jobs, count(pr_link) AS with_pr FROM agent_jobs WHERE project_id = $project
     GROUP BY status ORDER BY jobs DESC, status`,
    { project },
  );
  const [rate] = await db.all(
    `SELECT CAST(success_rate AS DOUBLE) AS success_rate, CAST(pr_rate AS DOUBLE) AS pr_rate, finished
     FROM (${queryFile('job-success-rate.sql')}) WHERE project_id = $project`,
    { project },
  );
  return {
    byStatus: byStatus.map((r: Raw) => ({ status: str(r.status), jobs: Number(r.jobs), withPr: Number(r.with_pr) })),
    successRate: num(rate?.success_rate),
    prRate: num(rate?.pr_rate),
    finished: Number(rate?.finished ?? 0),
  };
}

export async function readReportData(
  db: Executor,
  options: { projects: readonly string[]; from: string; to: string; last?: string; nowMs: number },
): Promise<ReportData> {
  const projects = options.projects.length > 0 ? [...options.projects] : await listProjects(db);
  const reports: ProjectReport[] = [];
  for (const projectId of projects) {
    reports.push({
      projectId,
      daily: await readDaily(db, projectId, options.from, options.to),
      topPages: await readTopPages(db, projectId, options.from, options.to),
      weeks: await readWeeks(db, projectId, options.from, options.to),
      jobs: await readJobs(db, projectId),
    });
  }
  return {
    from: options.from,
    to: options.to,
    ...(options.last !== undefined ? { last: options.last } : {}),
    generatedAt: new Date(options.nowMs).toISOString(),
    projects: reports,
  };
}
