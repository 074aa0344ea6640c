/**
 * What the report shows, read from the database's views and ready-made queries (sql/), so
 * that the page and an analyst's SQL agree: daily_site, top_pages_shown (as sql/queries/top-pages.sql), weekly_site through
 * sql/queries/week-over-week.sql, and sql/queries/job-success-rate.sql.
 *
 * Each kind of data is read in one statement for all the report's projects, then parted by
 * project here: the views and queries compute every project before a filter on one can apply
 * (DuckDB does not push it through their window functions), so a statement per project made
 * the report's time grow with the square of the number of projects.
 */
import { textList, type Executor } from '../load/database.js';
import { addDays, alignUp, planWindows } from '../extract/windows.js';
import { readSqlFile } from '../load/sql-files.js';
import { groupBy } from '../core/group-by.js';

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
  /** Views loaded for it, but no visitors day window: a gap in the visitors chart, named there. */
  noVisitors?: true;
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

/** The rows of one statement about several projects, parted by project_id (each project's in the order read). */
class ByProject {
  private readonly groups: Map<string, Raw[]>;

  constructor(rows: readonly Raw[]) {
    this.groups = groupBy(rows, (row) => str(row.project_id));
  }

  /** The project's rows; none for a project with none. */
  of(project: string): Raw[] {
    return this.groups.get(project) ?? [];
  }
}

async function readDaily(db: Executor, projects: readonly string[], from: string, to: string): Promise<ByProject> {
  const rows = await db.all(
    `SELECT project_id, strftime(day, '%Y-%m-%d') AS day, visitors_human, visitors_ai, visitors_total,
            CAST(ai_share AS DOUBLE) AS ai_share, views_total, complete,
            -- A day of views alone has no visitors window (a NULL count of a loaded one is a flag).
            EXISTS (SELECT 1 FROM visitor_totals t
                     WHERE t.project_id = d.project_id AND t.window_start = d.day AND t.window_end = d.day + 1) AS has_visitors
     FROM daily_site d
     WHERE list_contains($projects, project_id) AND day >= CAST($from AS DATE) AND day < CAST($to AS DATE)
     ORDER BY project_id, day`,
    { projects: textList(projects), from, to },
  );
  return new ByProject(rows);
}

/** One project's rows of daily_site (by day) as its daily points, the days missing between them put in. */
function dailyOf(rows: readonly Raw[]): DailyPoint[] {
  return withGaps(
    rows.map((r: Raw) => ({
      day: str(r.day),
      visitorsHuman: num(r.visitors_human),
      visitorsAi: num(r.visitors_ai),
      visitorsTotal: num(r.visitors_total),
      aiShare: num(r.ai_share),
      viewsTotal: num(r.views_total),
      complete: r.complete === true,
      ...(r.has_visitors === false ? { noVisitors: true as const } : {}),
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

/** Pure: runs of consecutive missing days (or those `isMissing` picks), as `start` or `start .. end` (inclusive). */
export function missingDayRuns(daily: readonly DailyPoint[], isMissing = (point: DailyPoint): boolean => point.missing === true): string[] {
  const runs: string[] = [];
  let first: string | undefined;
  let previous: string | undefined;
  for (const point of [...daily, undefined]) {
    if (point && isMissing(point)) {
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
 * Each project's newest complete window's top pages, of a window within the report's range
 * [from, to) (top_pages_shown: the window sql/queries/top-pages.sql shows over all time); a
 * longer window is preferred to a single day. None for a project whose range holds no complete
 * visitors window.
 */
async function readTopPages(db: Executor, projects: readonly string[], from: string, to: string): Promise<ByProject> {
  const rows = await db.all(
    `SELECT project_id, grain, strftime(window_start, '%Y-%m-%d') AS window_start, strftime(window_end, '%Y-%m-%d') AS window_end,
            rank, path, visitors, human, ai, CAST(ai_share AS DOUBLE) AS ai_share, views
     FROM top_pages_shown($from::DATE, $to::DATE, projects := $projects)
     ORDER BY project_id, rank`,
    { projects: textList(projects), from, to },
  );
  return new ByProject(rows);
}

/** One project's top pages rows (one window's, by rank) as its top pages; null for none. */
function topPagesOf(rows: readonly Raw[]): TopPages | null {
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

async function readWeeks(db: Executor, projects: readonly string[], from: string, to: string): Promise<ByProject> {
  const rows = await db.all(
    `SELECT project_id, strftime(week_start, '%Y-%m-%d') AS week_start, strftime(week_end, '%Y-%m-%d') AS week_end,
            visitors_total, CAST(visitors_change_pct AS DOUBLE) AS visitors_change_pct,
            CAST(ai_share AS DOUBLE) AS ai_share, complete, note
     FROM (${queryFile('week-over-week.sql')})
     WHERE list_contains($projects, project_id) AND week_end > CAST($from AS DATE) AND week_start < CAST($to AS DATE)
     ORDER BY project_id, week_start`,
    { projects: textList(projects), from, to },
  );
  return new ByProject(rows);
}

/** One project's rows of week-over-week.sql (by week_start), with the weeks of `range` not among them as missing. */
function weeksOf(rows: readonly Raw[], range: readonly { start: string; end: string }[]): WeekPoint[] {
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
  const missing = range
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

async function readJobs(db: Executor, projects: readonly string[]): Promise<{ byStatus: ByProject; rates: ByProject }> {
  const byStatus = new ByProject(await db.all(
    `SELECT project_id, status, count(*) AS jobs, count(pr_link) AS with_pr FROM agent_jobs WHERE list_contains($projects, project_id)
     GROUP BY project_id, status ORDER BY project_id, jobs DESC, status`,
    { projects: textList(projects) },
  ));
  const rates = new ByProject(await db.all(
    `SELECT project_id, CAST(success_rate AS DOUBLE) AS success_rate, CAST(pr_rate AS DOUBLE) AS pr_rate, finished
     FROM (${queryFile('job-success-rate.sql')}) WHERE list_contains($projects, project_id)`,
    { projects: textList(projects) },
  ));
  return { byStatus, rates };
}

/** One project's jobs per status (most frequent first) and its row of job-success-rate.sql, if any. */
function jobsOf(byStatus: readonly Raw[], rate: Raw | undefined): JobOutcomes {
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
  // Each kind of data in one statement for all the projects (none without projects: nothing to show).
  if (projects.length > 0) {
    const daily = await readDaily(db, projects, options.from, options.to);
    const topPages = await readTopPages(db, projects, options.from, options.to);
    const weeks = await readWeeks(db, projects, options.from, options.to);
    const jobs = await readJobs(db, projects);
    const range = wholeWeeks(options.from, options.to);
    for (const projectId of projects) {
      reports.push({
        projectId,
        daily: dailyOf(daily.of(projectId)),
        topPages: topPagesOf(topPages.of(projectId)),
        weeks: weeksOf(weeks.of(projectId), range),
        jobs: jobsOf(jobs.byStatus.of(projectId), jobs.rates.of(projectId)[0]),
      });
    }
  }
  return {
    from: options.from,
    to: options.to,
    ...(options.last !== undefined ? { last: options.last } : {}),
    generatedAt: new Date(options.nowMs).toISOString(),
    projects: reports,
  };
}
