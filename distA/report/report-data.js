import { alignUp, planWindows } from '../extract/windows.js';
import { readSqlFile } from '../load/sql-files.js';
const num = (v) => (v === null || v === undefined ? null : Number(v));
const str = (v) => String(v);
/** A query file of sql/queries/ as a subquery (its trailing `;` removed). */
function queryFile(name) {
    return readSqlFile(`queries/${name}`).trim().replace(/;\s*$/, '');
}
async function listProjects(db) {
    const rows = await db.all(`SELECT project_id FROM visitor_totals UNION SELECT project_id FROM view_totals
     UNION SELECT project_id FROM agent_jobs ORDER BY 1`);
    return rows.map((r) => str(r.project_id));
}
async function readDaily(db, project, from, to) {
    const rows = await db.all(`SELECT strftime(day, '%Y-%m-%d') AS day, visitors_human, visitors_ai, visitors_total,
            CAST(ai_share AS DOUBLE) AS ai_share, views_total, complete
     FROM daily_site
     WHERE project_id = $project AND day >= CAST($from AS DATE) AND day < CAST($to AS DATE)
     ORDER BY day`, { project, from, to });
    return rows.map((r) => ({
        day: str(r.day),
        visitorsHuman: num(r.visitors_human),
        visitorsAi: num(r.visitors_ai),
        visitorsTotal: num(r.visitors_total),
        aiShare: num(r.ai_share),
        viewsTotal: num(r.views_total),
        complete: r.complete === true,
    }));
}
/** The newest complete window's top pages; a longer window is preferred to a single day. */
async function readTopPages(db, project) {
    const rows = await db.all(`WITH pick AS (
       SELECT DISTINCT grain, window_start, window_end FROM latest_top_pages WHERE project_id = $project
       QUALIFY row_number() OVER (ORDER BY grain = 'day', window_end DESC, window_end - window_start DESC) = 1
     )
     SELECT t.grain, strftime(t.window_start, '%Y-%m-%d') AS window_start, strftime(t.window_end, '%Y-%m-%d') AS window_end,
            t.rank, t.path, t.visitors, t.human, t.ai, CAST(t.ai_share AS DOUBLE) AS ai_share, t.views
     FROM latest_top_pages t JOIN pick USING (grain, window_start, window_end)
     WHERE t.project_id = $project
     ORDER BY t.rank`, { project });
    const first = rows[0];
    if (!first)
        return null;
    return {
        grain: str(first.grain),
        windowStart: str(first.window_start),
        windowEnd: str(first.window_end),
        pages: rows.map((r) => ({
            rank: Number(r.rank),
            path: str(r.path),
            visitors: Number(r.visitors),
            human: Number(r.human),
            ai: Number(r.ai),
            aiShare: num(r.ai_share),
            views: num(r.views),
        })),
    };
}
async function readWeeks(db, project, from, to) {
    const rows = await db.all(`SELECT strftime(week_start, '%Y-%m-%d') AS week_start, strftime(week_end, '%Y-%m-%d') AS week_end,
            visitors_total, CAST(visitors_change_pct AS DOUBLE) AS visitors_change_pct,
            CAST(ai_share AS DOUBLE) AS ai_share, complete, note
     FROM (${queryFile('week-over-week.sql')})
     WHERE project_id = $project AND week_end > CAST($from AS DATE) AND week_start < CAST($to AS DATE)
     ORDER BY week_start`, { project, from, to });
    const loaded = rows.map((r) => ({
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
export function wholeWeeks(from, to) {
    const start = alignUp(from, 'week');
    const weeks = start < to ? planWindows(start, alignUp(to, 'week'), 'week') : [];
    return weeks.filter((w) => w.end <= to);
}
async function readJobs(db, project) {
    const byStatus = await db.all(`SELECT status, count(*) AS jobs, count(pr_link) AS with_pr FROM agent_jobs WHERE project_id = $project
     GROUP BY status ORDER BY jobs DESC, status`, { project });
    const [rate] = await db.all(`SELECT CAST(success_rate AS DOUBLE) AS success_rate, CAST(pr_rate AS DOUBLE) AS pr_rate, finished
     FROM (${queryFile('job-success-rate.sql')}) WHERE project_id = $project`, { project });
    return {
        byStatus: byStatus.map((r) => ({ status: str(r.status), jobs: Number(r.jobs), withPr: Number(r.with_pr) })),
        successRate: num(rate?.success_rate),
        prRate: num(rate?.pr_rate),
        finished: Number(rate?.finished ?? 0),
    };
}
export async function readReportData(db, options) {
    const projects = options.projects.length > 0 ? [...options.projects] : await listProjects(db);
    const reports = [];
    for (const projectId of projects) {
        reports.push({
            projectId,
            daily: await readDaily(db, projectId, options.from, options.to),
            topPages: await readTopPages(db, projectId),
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
//# sourceMappingURL=report-data.js.map