/**
 * Loading the endpoints beyond visitors and views (issue 11), set-based from the spool like
 * ./window-store.ts: DuckDB reads the spooled page bodies itself (`read_json`). Each window
 * replaces its earlier copy in the caller's transaction, with its `loaded_windows` row
 * (written by the caller, ./window-store.ts):
 *
 * - window aggregates (searches, feedback by page, caller stats): the window's rows and
 *   totals are deleted and inserted again; a row identity the walk saw twice keeps its first copy;
 * - event streams (feedback, assistant conversations): keyed by (project_id, id). A window's
 *   events replace every event the window had, and an event that was filed under another
 *   window before (its timestamp moved) moves to this one: nothing is doubled.
 */
import { isEventStream } from '../api/endpoints.js';
import type { Metric, Totals } from '../core/domain.js';
import type { CompletedWalk } from '../spool/spool.js';
import type { Executor } from './database.js';
import { countFits, countLiteral, fitsBigint, roundedCount } from './count-sql.js';
import { sqlString } from './sql-files.js';

interface RowLoad {
  table: string;
  /** The array of the page body that holds the rows. */
  array: string;
  /** The DuckDB type of one item of that array (only the fields loaded). */
  item: string;
  /** SQL of a row's identity, over the item `r`. */
  key: string;
  /** Target column and its SQL over the item `r`, in insert order. */
  columns: readonly (readonly [string, string])[];
  /** The item's counts (stored rounded): a non-integral, missing, negative or too large one is a warning on its window. */
  counts?: readonly string[];
  /** The item's timestamps, as sent: one that is not a timestamp is stored as NULL, a warning on its window. */
  times?: readonly string[];
}

/**
 * A timestamp as stored: NULL when the text sent is not one (see RowLoad.times). ISO 8601
 * without seconds (`2026-11-01T10:00Z`, `2026-11-01T10+02:00`), which DuckDB's cast refuses, is
 * read with the seconds it leaves out.
 */
const time = (sql: string): string =>
  `coalesce(try_cast(${sql} AS TIMESTAMPTZ), try_cast(regexp_replace(regexp_replace(${sql},
     '^(\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2})([^:\\d]|$)', '\\1:00\\2'),
     '^(\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2})([^:\\d]|$)', '\\1:00:00\\2') AS TIMESTAMPTZ))`;

/** A count as stored: rounded, NULL beyond 64 bits (flagged `count_out_of_range` on its window). */
const count = roundedCount;

/** The row tables of the metrics that have rows (caller stats has none). */
export const ROW_LOADS: Partial<Record<Metric, RowLoad>> = {
  searches: {
    table: 'searches',
    array: 'searches',
    item: 'STRUCT(searchQuery VARCHAR, hits DOUBLE, ctr DOUBLE, topClickedPage VARCHAR, lastSearchedAt VARCHAR)',
    key: 'r.searchQuery',
    counts: ['r.hits'],
    times: ['r.lastSearchedAt'],
    columns: [
      ['search_query', 'r.searchQuery'],
      ['hits', count('r.hits')],
      ['ctr', 'r.ctr'],
      ['top_clicked_page', 'r.topClickedPage'],
      ['last_searched_at', time('r.lastSearchedAt')],
    ],
  },
  'feedback-by-page': {
    table: 'feedback_by_page',
    array: 'feedback',
    item: 'STRUCT(path VARCHAR, thumbsUp DOUBLE, thumbsDown DOUBLE, code DOUBLE, total DOUBLE)',
    key: 'r.path',
    counts: ['r.thumbsUp', 'r.thumbsDown', 'r.code', 'r.total'],
    columns: [
      ['path', 'r.path'],
      ['thumbs_up', count('r.thumbsUp')],
      ['thumbs_down', count('r.thumbsDown')],
      ['code', count('r.code')],
      ['total', count('r.total')],
    ],
  },
  feedback: {
    table: 'feedback',
    array: 'feedback',
    item:
      'STRUCT(id VARCHAR, path VARCHAR, comment VARCHAR, createdAt VARCHAR, source VARCHAR, status VARCHAR, ' +
      'helpful BOOLEAN, contact VARCHAR, code VARCHAR, filename VARCHAR, lang VARCHAR)',
    key: 'r.id',
    times: ['r.createdAt'],
    columns: [
      ['id', 'r.id'],
      ['path', 'r.path'],
      ['comment', 'r.comment'],
      ['created_at', time('r.createdAt')],
      ['source', 'r.source'],
      ['status', 'r.status'],
      ['helpful', 'r.helpful'],
      ['contact', 'r.contact'],
      ['code', 'r.code'],
      ['filename', 'r.filename'],
      ['lang', 'r.lang'],
    ],
  },
  assistant: {
    table: 'assistant_conversations',
    array: 'conversations',
    item:
      'STRUCT(id VARCHAR, "timestamp" VARCHAR, query VARCHAR, response VARCHAR, responseType VARCHAR, ' +
      'sources STRUCT(title VARCHAR, url VARCHAR)[], resolutionStatus VARCHAR, queryCategory VARCHAR, pageUrl VARCHAR, threadId VARCHAR)',
    key: 'r.id',
    times: ['r."timestamp"'],
    columns: [
      ['id', 'r.id'],
      ['"timestamp"', time('r."timestamp"')],
      ['query', 'r.query'],
      ['response', 'r.response'],
      // The spec: "Defaults to `answer` when not present."
      ['response_type', `coalesce(r.responseType, 'answer')`],
      ['sources', 'r.sources'],
      ['resolution_status', 'r.resolutionStatus'],
      ['query_category', 'r.queryCategory'],
      ['page_url', 'r.pageUrl'],
      // The API names a thread by a conversation row's id (a threadId is not in its schema;
      // one a server sends anyway is taken, unless it is blank).
      ['thread_id', `coalesce(nullif(trim(r.threadId), ''), r.id)`],
    ],
  },
};

/**
 * SQL for the thread of an assistant_conversations row (`alias`: the table's, if any): its
 * thread_id, or else its id, which names the thread (rows docpipe 0.2.0 loaded from an API that
 * sent no threadId have none).
 */
export function conversationThreadSql(alias?: string): string {
  const a = alias ? `${alias}.` : '';
  return `coalesce(nullif(trim(${a}thread_id), ''), ${a}id)`;
}

/** A completed walk and its spool file of pages. */
export interface EndpointLoad {
  walk: CompletedWalk;
  file: string;
}

const date = (day: string): string => `DATE ${sqlString(day)}`;
const ts = (ms: number): string => `${sqlString(new Date(ms).toISOString())}::TIMESTAMPTZ`;
/** A total as a literal: a null one (the API sent null) stays NULL. */
const num = (totals: Totals, key: string): string => countLiteral(totals[key] === undefined ? 0 : totals[key]);
const windowOf = (w: CompletedWalk): string => `(${sqlString(w.projectId)}, ${date(w.window.start)}, ${date(w.window.end)})`;

/** The rows of every spooled page of `loads`, tagged with their window, first copy of each identity. */
function spooledRows(spec: RowLoad, loads: readonly EndpointLoad[], events: boolean): string {
  const inItem = (sql: string): string => sql.replace(/\br\./g, 'j.r.');
  const list = `[${loads.map((l) => sqlString(l.file)).join(', ')}]`;
  const map = loads
    .map(({ file, walk }) => `(${sqlString(file)}, ${sqlString(walk.projectId)}, ${date(walk.window.start)}, ${date(walk.window.end)}, ${sqlString(walk.runId)})`)
    .join(', ');
  const columns = spec.columns.map(([column, sql]) => `${inItem(sql)} AS ${column}`).join(', ');
  const any = (test: (c: string) => string): string => (spec.counts ?? []).map((c) => `(${test(inItem(c))})`).join(' OR ') || 'false';
  const nonIntegral = any((c) => `${fitsBigint(c)} AND ${c} <> floor(${c})`);
  const outOfRange = any((c) => `${c} IS NOT NULL AND NOT ${fitsBigint(c)}`);
  const badTime = (spec.times ?? []).map((t) => `(${inItem(t)} IS NOT NULL AND ${time(inItem(t))} IS NULL)`).join(' OR ') || 'false';
  return `
    SELECT m.project_id, m.window_start, m.window_end, ${columns}, m.run_id, coalesce(${nonIntegral}, false) AS non_integral,
           coalesce(${outOfRange}, false) AS out_of_range, ${any((c) => `${c} IS NULL`)} AS count_missing,
           coalesce(${any((c) => `${c} < 0`)}, false) AS negative, ${badTime} AS time_invalid
      FROM (SELECT unnest(body.${spec.array}) AS r, generate_subscripts(body.${spec.array}, 1) AS i, page, filename
              FROM read_json(${list}, format = 'newline_delimited', filename = true,
                             columns = {page: 'INTEGER', body: 'STRUCT(${spec.array} ${spec.item}[])'})) j
      JOIN (VALUES ${map}) m(filename, project_id, window_start, window_end, run_id) ON m.filename = j.filename
   QUALIFY row_number() OVER (PARTITION BY m.project_id, ${inItem(spec.key)}${events ? '' : ', m.window_start, m.window_end'}
                              ORDER BY m.window_start DESC, j.page, j.i) = 1`;
}

/**
 * Loads completed walks of one metric other than visitors and views in the caller's
 * transaction. Returns the warnings recorded per window.
 */
export async function loadEndpointWindows(tx: Executor, metric: Metric, loads: readonly EndpointLoad[]): Promise<Map<CompletedWalk, string[]>> {
  const warnings = new Map<CompletedWalk, string[]>(loads.map((l) => [l.walk, [...l.walk.warnings]]));
  /** Windows with a count not stored as sent (rounded, or NULL): their sums are not compared. */
  const uncountable = new Set<CompletedWalk>();
  /** The load of a window a query row names (`p`, `s`, `e`: its project, start and end). */
  const loadOf = (r: { p: string; s: string; e: string }): EndpointLoad | undefined =>
    loads.find((l) => l.walk.projectId === r.p && l.walk.window.start === r.s && l.walk.window.end === r.e);
  const keys = loads.map((l) => windowOf(l.walk)).join(', ');
  const spec = ROW_LOADS[metric];
  if (spec) {
    const events = isEventStream(metric);
    const columns = ['project_id', 'window_start', 'window_end', ...spec.columns.map(([c]) => c), 'run_id'].join(', ');
    await tx.run(`DELETE FROM ${spec.table} WHERE (project_id, window_start, window_end) IN (${keys})`);
    // Staged once: events filed under another window are moved here, and counts checked.
    await tx.run(`CREATE OR REPLACE TEMP TABLE docpipe_staged_rows AS ${spooledRows(spec, loads, events)}`);
    if (events) await tx.run(`DELETE FROM ${spec.table} WHERE (project_id, id) IN (SELECT project_id, id FROM docpipe_staged_rows)`);
    await tx.run(`INSERT INTO ${spec.table} (${columns}) SELECT ${columns} FROM docpipe_staged_rows`);
    const flagged = await tx.all<{ p: string; s: string; e: string; odd: bigint; big: bigint; missing: bigint; negative: bigint; times: bigint }>(
      `SELECT project_id AS p, strftime(window_start, '%Y-%m-%d') AS s, strftime(window_end, '%Y-%m-%d') AS e,
              count(*) FILTER (WHERE non_integral) AS odd, count(*) FILTER (WHERE out_of_range) AS big,
              count(*) FILTER (WHERE count_missing) AS missing, count(*) FILTER (WHERE negative) AS negative,
              count(*) FILTER (WHERE time_invalid) AS times
         FROM docpipe_staged_rows WHERE non_integral OR out_of_range OR count_missing OR negative OR time_invalid GROUP BY ALL`,
    );
    await tx.run(`DROP TABLE docpipe_staged_rows`);
    const rowsOf = (n: bigint): string => `${n} row${n === 1n ? '' : 's'}`;
    for (const f of flagged) {
      const load = loadOf(f);
      if (!load) continue;
      if (f.odd > 0n || f.missing > 0n || f.big > 0n) uncountable.add(load.walk);
      if (f.odd > 0n) warnings.get(load.walk)?.push(`${rowsOf(f.odd)} non_integral (stored rounded)`);
      if (f.negative > 0n) warnings.get(load.walk)?.push(`${rowsOf(f.negative)} negative`);
      if (f.missing > 0n) warnings.get(load.walk)?.push(`${rowsOf(f.missing)} count_missing (stored as NULL)`);
      if (f.big > 0n) warnings.get(load.walk)?.push(`${rowsOf(f.big)} count_out_of_range (stored as NULL)`);
      if (f.times > 0n) warnings.get(load.walk)?.push(`${rowsOf(f.times)} timestamp_invalid (stored as NULL)`);
    }
  }
  // Window totals are counts too.
  for (const { walk } of loads) {
    const odd = Object.entries(walk.totals).filter(([, v]) => countFits(v) && !Number.isInteger(v));
    if (odd.length > 0) warnings.get(walk)?.push(`totals non_integral (stored rounded): ${odd.map(([k, v]) => `${k} ${v}`).join(', ')}`);
    const negative = Object.entries(walk.totals).filter(([, v]) => v !== null && v < 0);
    if (negative.length > 0) warnings.get(walk)?.push(`totals negative: ${negative.map(([k, v]) => `${k} ${v}`).join(', ')}`);
    const missing = Object.entries(walk.totals).filter(([, v]) => v === null);
    if (missing.length > 0) warnings.get(walk)?.push(`totals count_missing (stored as NULL): ${missing.map(([k]) => k).join(', ')}`);
    const big = Object.entries(walk.totals).filter(([, v]) => v !== null && !countFits(v));
    if (big.length > 0) warnings.get(walk)?.push(`totals count_out_of_range (stored as NULL): ${big.map(([k, v]) => `${k} ${v}`).join(', ')}`);
    if (odd.length > 0 || missing.length > 0 || big.length > 0) uncountable.add(walk);
  }
  if (metric === 'searches') {
    const values = loads
      .map(({ walk: w }) => `(${sqlString(w.projectId)}, ${date(w.window.start)}, ${date(w.window.end)}, ${num(w.totals, 'totalSearches')}, ${ts(w.fetchedAt)}, ${sqlString(w.runId)})`)
      .join(', ');
    await tx.run(
      `INSERT OR REPLACE INTO search_totals (project_id, window_start, window_end, total_searches, extracted_at, run_id)
       SELECT p, s, e, ${count('t')}, x, r FROM (VALUES ${values}) v(p, s, e, t, x, r)`,
    );
    // totalSearches is the sum of every query's hits (OpenAPI): a window whose rows do not add
    // up to it is warned of (a listing cut short, or counts that moved while it was walked).
    // Only counts stored as sent are compared (one rounded or missing is warned of above).
    const sums = await tx.all<{ p: string; s: string; e: string; total: bigint; hits: bigint | null }>(
      `SELECT t.project_id AS p, strftime(t.window_start, '%Y-%m-%d') AS s, strftime(t.window_end, '%Y-%m-%d') AS e,
              t.total_searches AS total, sum(x.hits) AS hits
         FROM search_totals t
         LEFT JOIN searches x USING (project_id, window_start, window_end)
        WHERE (t.project_id, t.window_start, t.window_end) IN (${keys})
        GROUP BY ALL HAVING t.total_searches <> coalesce(sum(x.hits), 0)`,
    );
    for (const m of sums) {
      const load = loadOf(m);
      if (!load || uncountable.has(load.walk) || load.walk.totals.totalSearches === undefined) continue;
      warnings.get(load.walk)?.push(`totalSearches ${m.total} is not the sum of the queries' hits (${m.hits ?? 0})`);
    }
  }
  if (metric === 'caller-stats') {
    const values = loads
      .map(({ walk: w }) =>
        `(${sqlString(w.projectId)}, ${date(w.window.start)}, ${date(w.window.end)}, ${['web', 'api', 'other', 'total'].map((k) => num(w.totals, k)).join(', ')}, ${ts(w.fetchedAt)}, ${sqlString(w.runId)})`,
      )
      .join(', ');
    await tx.run(
      `INSERT OR REPLACE INTO assistant_caller_stats (project_id, window_start, window_end, web, api, other, total, extracted_at, run_id)
       SELECT p, s, e, ${count('w')}, ${count('a')}, ${count('o')}, ${count('t')}, x, r FROM (VALUES ${values}) v(p, s, e, w, a, o, t, x, r)`,
    );
    for (const { walk } of loads) {
      const t = walk.totals;
      const parts = [t.web, t.api, t.other, t.total];
      // Only counts stored as sent are compared, as for searches (one rounded, missing or out
      // of range is warned of above; 0.1 + 0.2 is no sum to hold against 0.3).
      if (uncountable.has(walk) || !parts.every((v) => v !== null && v !== undefined && Number.isFinite(v))) continue;
      const sum = (t.web ?? 0) + (t.api ?? 0) + (t.other ?? 0);
      if (t.total !== sum) warnings.get(walk)?.push(`caller stats total ${t.total} is not web + api + other (${sum})`);
    }
  }
  return warnings;
}
