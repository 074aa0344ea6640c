/**
 * The report page: one self-contained HTML file (inline styles, charts as inline SVG, no
 * script, no external request), with a short table under each chart for people who read.
 */
import { aiShareOption, jobsOption, renderSvg, renumberChartIds, topPagesOption, viewsVsVisitorsOption, visitorsOption, weeksOption } from './charts.js';
import { missingDayRuns, type DailyPoint, type ProjectReport, type ReportData } from './report-data.js';

/** Rows of the daily tables: the most recent days (the chart has them all). */
const TABLE_DAYS = 7;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

const int = (v: number | null): string => (v === null ? '–' : Math.round(v).toLocaleString('en-US'));
const pct = (v: number | null, digits = 1): string => (v === null ? '–' : `${(v * 100).toFixed(digits)}%`);

function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const head = headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

interface Chart {
  id: string;
  title: string;
  note: string;
  svg: string | null;
  empty: string;
  table: string;
}

function figure(project: string, chart: Chart): string {
  const body = chart.svg ?? `<p class="empty">${escapeHtml(chart.empty)}</p>`;
  return `<figure class="chart" id="${escapeHtml(`${project}-${chart.id}`)}" data-chart="${chart.id}">
<h3>${escapeHtml(chart.title)}</h3>
<p class="note">${escapeHtml(chart.note)}</p>
<div class="svg">${body}</div>
${chart.table}
</figure>`;
}

function recent(daily: readonly DailyPoint[]): DailyPoint[] {
  return daily.slice(-TABLE_DAYS).reverse();
}

function partial(d: DailyPoint): string {
  return d.missing ? `${d.day} (missing)` : d.complete ? d.day : `${d.day} (partial)`;
}

function charts(p: ProjectReport, data: ReportData): Chart[] {
  const hasDays = p.daily.length > 0;
  const noDays = `No day windows loaded for ${data.from} .. ${data.to}: run docpipe export visitors (and views) for that range.`;
  const lastDays = `The ${Math.min(TABLE_DAYS, p.daily.length)} most recent days.`;
  const top = p.topPages;
  const missingWeeks = p.weeks.filter((w) => w.visitorsTotal === null).map((w) => w.weekStart);
  const gaps = missingDayRuns(p.daily, (d) => d.missing === true || d.noVisitors === true);
  const missingDays = gaps.length > 0 ? ` Missing days (no visitors day window loaded, drawn as gaps): ${gaps.join(', ')}.` : '';
  return [
    {
      id: 'visitors',
      title: 'Unique visitors per day: human and AI',
      note: `Day windows ${data.from} .. ${data.to} (UTC, end exclusive). Total is deduplicated, so it is below human + AI.${missingDays} ${lastDays}`,
      svg: hasDays ? renderSvg(visitorsOption(p.daily)) : null,
      empty: noDays,
      table: table(['day', 'human', 'AI', 'total'], recent(p.daily).map((d) => [partial(d), int(d.visitorsHuman), int(d.visitorsAi), int(d.visitorsTotal)])),
    },
    {
      id: 'ai-share',
      title: 'AI share of unique visitors',
      note: `AI visitors / all unique visitors, per day. ${lastDays}`,
      svg: hasDays ? renderSvg(aiShareOption(p.daily)) : null,
      empty: noDays,
      table: table(['day', 'AI share'], recent(p.daily).map((d) => [partial(d), pct(d.aiShare)])),
    },
    {
      id: 'top-pages',
      title: top ? `Top pages of ${top.windowStart} .. ${top.windowEnd} (${top.grain} window)` : 'Top pages',
      note: top
        ? `The newest complete ${top.grain} window [${top.windowStart}, ${top.windowEnd}): it has ended and was fetched after it ended. Visitors are that window's uniques.`
        : '',
      svg: top ? renderSvg(topPagesOption(top), { height: 380 }) : null,
      empty: 'No complete window loaded yet: a window counts once it has ended and was fetched after it ended.',
      table: top
        ? table(['#', 'page', 'visitors', 'human', 'AI', 'AI share', 'views'], top.pages.map((t) => [String(t.rank), t.path, int(t.visitors), int(t.human), int(t.ai), pct(t.aiShare), int(t.views)]))
        : '',
    },
    {
      id: 'views-vs-visitors',
      title: 'Page views vs unique visitors per day',
      note: `Views are events, visitors are people: views per visitor says how deep people read. ${lastDays}`,
      svg: hasDays ? renderSvg(viewsVsVisitorsOption(p.daily)) : null,
      empty: noDays,
      table: table(
        ['day', 'page views', 'unique visitors', 'views per visitor'],
        recent(p.daily).map((d) => [
          partial(d),
          int(d.viewsTotal),
          int(d.visitorsTotal),
          d.viewsTotal !== null && d.visitorsTotal ? (d.viewsTotal / d.visitorsTotal).toFixed(2) : '–',
        ]),
      ),
    },
    {
      id: 'week-over-week',
      title: 'Week over week: unique visitors',
      note:
        'From weekly windows only (weekly uniques are never added up from days); a pale bar is a week fetched before it ended. ' +
        (missingWeeks.length > 0
          ? `Missing weeks (no weekly window loaded): ${missingWeeks.join(', ')}; run docpipe export visitors --window week for them.`
          : 'Every week of the range has its weekly window.'),
      svg: p.weeks.length > 0 ? renderSvg(weeksOption(p.weeks)) : null,
      empty: 'No week in this range.',
      table: table(
        ['week', 'visitors', 'change', 'AI share', 'note'],
        p.weeks.map((w) => [
          `${w.weekStart} .. ${w.weekEnd}`,
          int(w.visitorsTotal),
          w.visitorsChangePct === null ? '–' : `${w.visitorsChangePct > 0 ? '+' : ''}${w.visitorsChangePct.toFixed(1)}%`,
          pct(w.aiShare),
          w.note ?? '',
        ]),
      ),
    },
    {
      id: 'jobs',
      title: 'Agent job outcomes',
      note:
        p.jobs.finished > 0
          ? `Success rate ${pct(p.jobs.successRate, 0)} of ${p.jobs.finished} finished jobs (completed / finished); ${pct(p.jobs.prRate, 0)} opened a pull request.`
          : 'No finished agent job yet.',
      svg: p.jobs.byStatus.length > 0 ? renderSvg(jobsOption(p.jobs), { height: 260 }) : null,
      empty: 'No agent job in the ledger: docpipe jobs submit FILE.',
      table: table(['status', 'jobs', 'with a pull request'], p.jobs.byStatus.map((s) => [s.status, String(s.jobs), String(s.withPr)])),
    },
  ];
}

const STYLE = `
body { font-family: system-ui, -apple-system, sans-serif; margin: 0 auto; max-width: 860px; padding: 24px; color: #0f172a; background: #fff; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { margin-top: 2.5rem; border-bottom: 1px solid #e2e8f0; padding-bottom: 0.3rem; }
h3 { margin: 0 0 0.3rem; font-size: 1.1rem; }
.meta, .note { color: #475569; font-size: 0.9rem; margin: 0.2rem 0 0.6rem; }
figure.chart { margin: 1.5rem 0 2.5rem; }
.svg svg { max-width: 100%; height: auto; }
.empty { padding: 2rem; background: #f8fafc; color: #64748b; border: 1px dashed #cbd5e1; }
table { border-collapse: collapse; font-size: 0.85rem; margin-top: 0.5rem; }
th, td { padding: 3px 10px; border-bottom: 1px solid #e2e8f0; text-align: right; }
th:first-child, td:first-child, td:nth-child(2):not(:last-child) { text-align: left; }
th { color: #475569; font-weight: 600; }
`;

export function renderReportHtml(data: ReportData): string {
  const range = `${data.from} .. ${data.to}${data.last ? ` (last ${data.last})` : ''}`;
  const sections = data.projects.map(
    (p) => `<section class="project" data-project="${escapeHtml(p.projectId)}">
<h2>Project ${escapeHtml(p.projectId)}</h2>
${charts(p, data)
  .map((c) => figure(p.projectId, c))
  .join('\n')}
</section>`,
  );
  const body = sections.length > 0 ? renumberChartIds(sections.join('\n')) : '<p class="empty">The database holds no project yet: run docpipe export first.</p>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>docpipe report ${escapeHtml(range)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Documentation analytics</h1>
<p class="meta">Range ${escapeHtml(range)}, UTC days, end exclusive. Generated ${escapeHtml(data.generatedAt)} by docpipe from its DuckDB database. Unique visitors are never summed across windows: each figure comes from windows of its own size.</p>
${body}
</body>
</html>
`;
}
