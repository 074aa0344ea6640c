/**
 * Analytics windows in DuckDB, loaded set-based from the spool. DuckDB parses the spooled
 * page bodies itself (`read_json`, on its own threads) and computes each row's quality flags
 * in SQL; the JavaScript thread only names the files. A window's rows, its totals and its
 * bookkeeping row replace any earlier copy in the caller's transaction, so a crash leaves
 * every window wholly old or wholly new; several windows may share one transaction.
 *
 * The page tables have no key: their grain (project_id, window_start, window_end, path) is
 * kept here (the old copy of a window is deleted before the new one goes in, and a walk that
 * saw a path twice keeps its first copy) and checked by `docpipe doctor`.
 */
import { PAGE_METRICS, windowKey, type Counts, type LoadedWindow, type Metric, type PageMetric, type Window } from '../core/domain.js';
import { loadEndpointWindows } from './endpoint-store.js';
import type { CompletedWalk } from '../spool/spool.js';
import type { Executor } from './database.js';
import { countLiteral, fitsBigint, roundedCount } from './count-sql.js';
import { sqlString } from './sql-files.js';

export const METRIC_TABLES = {
  visitors: { totals: 'visitor_totals', pages: 'page_visitors', array: 'visitors' },
  views: { totals: 'view_totals', pages: 'page_views', array: 'views' },
} as const satisfies Record<PageMetric, { totals: string; pages: string; array: string }>;

/** The row-quality flags, as `flags` lists them (comma-separated). */
export const ROW_FLAGS = ['non_integral', 'negative', 'total_out_of_bounds', 'count_missing', 'count_out_of_range'] as const;

/**
 * SQL for a row's flags from its raw counts (DOUBLE expressions): NULL for a clean row, else
 * e.g. `non_integral,total_out_of_bounds`. Uniques must satisfy max(human, ai) <= total <=
 * human + ai; a row that does not is kept and flagged, never dropped.
 */
export function flagsSql(human: string, ai: string, total: string): string {
  const [h, a, t] = [roundedCount(human), roundedCount(ai), roundedCount(total)];
  const raw = [human, ai, total];
  // Nearly every row is clean: one cheap test for it skips building the list (a NULL count
  // fails the test and gets the list).
  const clean = `(${raw.map((x) => `${x} = floor(${x})`).join(' AND ')} AND least(${human}, ${ai}) >= 0
      AND ${total} >= greatest(${human}, ${ai}) AND ${total} <= ${human} + ${ai} AND ${fitsBigint(total)})`;
  return `CASE WHEN ${clean} THEN NULL ELSE nullif(concat_ws(',',
      CASE WHEN ${raw.map((x) => `(${fitsBigint(x)} AND ${x} <> floor(${x}))`).join(' OR ')} THEN 'non_integral' END,
      CASE WHEN least(${h}, ${a}, ${t}) < 0 THEN 'negative' END,
      CASE WHEN ${t} < greatest(${h}, ${a}) OR ${t} > ${h} + ${a} THEN 'total_out_of_bounds' END,
      CASE WHEN ${raw.map((x) => `${x} IS NULL`).join(' OR ')} THEN 'count_missing' END,
      CASE WHEN ${raw.map((x) => `NOT ${fitsBigint(x)}`).join(' OR ')} THEN 'count_out_of_range' END), '') END`;
}

/** A completed walk and its spool file of pages (one JSON line a page), ready to load. */
export interface WindowLoad {
  walk: CompletedWalk;
  file: string;
}

/** The loaded windows of a series (or only `window` of it), by `windowKey`. */
export async function readLoadedWindows(db: Executor, metric: Metric, projectId: string, window?: Window): Promise<Map<string, LoadedWindow>> {
  const rows = await db.all<{ start: string; end: string; fetched_ms: number | bigint }>(
    `SELECT strftime(window_start, '%Y-%m-%d') AS start, strftime(window_end, '%Y-%m-%d') AS "end",
            epoch_ms(fetched_at) AS fetched_ms
       FROM loaded_windows WHERE metric = $metric AND project_id = $project
        ${window ? 'AND window_start = $start::DATE AND window_end = $end::DATE' : ''}`,
    { metric, project: projectId, ...(window ? { start: window.start, end: window.end } : {}) },
  );
  return new Map(rows.map((r) => [windowKey(r), { start: r.start, end: r.end, fetchedAt: Number(r.fetched_ms) }]));
}

const ts = (ms: number): string => sqlString(new Date(ms).toISOString());
const date = (day: string): string => `DATE ${sqlString(day)}`;
const countsSql = (c: Counts): string => [c.human, c.ai, c.total].map(countLiteral).join(', ');

/** The rows of every spooled page of `loads`, tagged with their window, as a SELECT. */
function spooledRows(metric: PageMetric, loads: readonly WindowLoad[], dedupe: boolean): string {
  const list = `[${loads.map((l) => sqlString(l.file)).join(', ')}]`;
  const map = loads
    .map(({ file, walk }) =>
      `(${sqlString(file)}, ${sqlString(walk.projectId)}, ${date(walk.window.start)}, ${date(walk.window.end)}, ${sqlString(walk.runId)})`,
    )
    .join(', ');
  const array = METRIC_TABLES[metric].array;
  const rows = dedupe
    ? `SELECT unnest(body.${array}) AS r, generate_subscripts(body.${array}, 1) AS i, page, filename`
    : `SELECT unnest(body.${array}) AS r, filename`;
  const select = `
    SELECT m.project_id, m.window_start, m.window_end, j.r.path AS path,
           ${roundedCount('j.r.human')} AS human, ${roundedCount('j.r.ai')} AS ai, ${roundedCount('j.r.total')} AS total,
           m.run_id, ${flagsSql('j.r.human', 'j.r.ai', 'j.r.total')} AS flags
      FROM (${rows}
              FROM read_json(${list}, format = 'newline_delimited', filename = true,
                             columns = {page: 'INTEGER',
                                        body: 'STRUCT(${array} STRUCT(path VARCHAR, human DOUBLE, ai DOUBLE, total DOUBLE)[])'})) j
      JOIN (VALUES ${map}) m(filename, project_id, window_start, window_end, run_id) ON m.filename = j.filename`;
  // A walk that saw a path twice keeps each path's first copy (page order, then row order).
  return dedupe
    ? `${select} QUALIFY row_number() OVER (PARTITION BY m.project_id, m.window_start, m.window_end, j.r.path ORDER BY j.page, j.i) = 1`
    : select;
}

/** DuckDB's row group, in rows. */
export const ROW_GROUP_ROWS = 122_880;

const isPageMetric = (metric: Metric): metric is PageMetric => (PAGE_METRICS as readonly Metric[]).includes(metric);

const PAGE_COLUMNS = 'project_id, window_start, window_end, path, human, ai, total, run_id, flags';

export interface LoadOptions {
  /**
   * The load follows the caller's previous load back to back (a fast run's loads): an append,
   * however small, leaves its row groups to a later write's merge (see vacuumSql).
   * @default false
   */
  backToBack?: boolean;
}

/**
 * Loads completed walks in the caller's transaction: each window's rows, totals and
 * `loaded_windows` row replace its earlier copy. Returns the warnings recorded per window
 * (the walk's, plus a line per row flag, e.g. `3 rows total_out_of_bounds`).
 */
export async function loadWindows(tx: Executor, loads: readonly WindowLoad[], options: LoadOptions = {}): Promise<Map<CompletedWalk, string[]>> {
  const warnings = new Map<CompletedWalk, string[]>();
  /** Whether the write only appends page rows (no earlier copy replaced, no other table's rows). */
  let appendOnly = true;
  /**
   * Whether a loaded_windows row of these windows may exist already. Where none can (a
   * backfill's windows), the rows go in with a plain INSERT, and so do the totals: DuckDB's
   * INSERT OR REPLACE took 5-18 ms for one row against 1.4-1.9 ms, and a load of one window
   * 126-136 ms of CPU against 141-150 (open to close, 3 rounds of 6 loads in one run).
   */
  let replacesBookkeeping = false;
  for (const metric of new Set(loads.map((l) => l.walk.metric))) {
    const mine = loads.filter((l) => l.walk.metric === metric);
    if (!isPageMetric(metric)) {
      appendOnly = false;
      replacesBookkeeping = true;
      for (const [walk, lines] of await loadEndpointWindows(tx, metric, mine)) warnings.set(walk, lines);
      continue;
    }
    const tables = METRIC_TABLES[metric];
    const keys = mine
      .map((l) => `(${sqlString(l.walk.projectId)}, ${date(l.walk.window.start)}, ${date(l.walk.window.end)})`)
      .join(', ');
    // Spelled out beside the IN list so that DuckDB can skip row groups by their min/max.
    const starts = mine.map((l) => l.walk.window.start).sort();
    const span = `window_start BETWEEN ${date(starts[0]!)} AND ${date(starts.at(-1)!)}`;
    // The windows loaded before: a window's rows, its totals row and its loaded_windows row
    // change together, but one of the rows may have been deleted by hand.
    const [found] = await tx.all<{ loaded: boolean; totals: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM loaded_windows
                       WHERE metric = ${sqlString(metric)} AND (project_id, window_start, window_end) IN (${keys})) AS loaded,
              EXISTS (SELECT 1 FROM ${tables.totals} WHERE (project_id, window_start, window_end) IN (${keys})) AS totals`,
    );
    const totalsFound = found?.totals === true;
    if (found?.loaded || totalsFound) appendOnly = false;
    if (found?.loaded) replacesBookkeeping = true;
    // Every window's earlier rows go first, found by their key whatever bookkeeping is left (a
    // window whose rows are there without either row would otherwise have them twice): one
    // statement, whose span skips the row groups of other days (about 4 ms on 540,000 rows).
    await tx.run(`DELETE FROM ${tables.pages} WHERE ${span} AND (project_id, window_start, window_end) IN (${keys})`);
    for (const dedupe of [false, true]) {
      const group = mine.filter((l) => l.walk.repeatedPaths === dedupe);
      if (group.length > 0) {
        await tx.run(`INSERT INTO ${tables.pages} (${PAGE_COLUMNS}) ${spooledRows(metric, group, dedupe)}`);
      }
    }
    const totals = mine
      .map((l) => `(${sqlString(l.walk.projectId)}, ${date(l.walk.window.start)}, ${date(l.walk.window.end)}, ${countsSql(l.walk.totals as Counts)}, ${ts(l.walk.fetchedAt)}::TIMESTAMPTZ, ${sqlString(l.walk.runId)})`)
      .join(', ');
    const totalFlags = await tx.all<{ project_id: string; s: string; e: string; flags: string | null }>(
      `INSERT${totalsFound ? ' OR REPLACE' : ''} INTO ${tables.totals} (project_id, window_start, window_end, human, ai, total, extracted_at, run_id, flags)
       SELECT p, s, e, ${roundedCount('h')}, ${roundedCount('a')}, ${roundedCount('t')}, x, r, ${flagsSql('h', 'a', 't')}
         FROM (VALUES ${totals}) v(p, s, e, h, a, t, x, r)
       RETURNING project_id, strftime(window_start, '%Y-%m-%d') AS s, strftime(window_end, '%Y-%m-%d') AS e, flags`,
    );
    const rowFlags = await tx.all<{ project_id: string; s: string; e: string; flag: string; n: bigint }>(
      `SELECT project_id, strftime(window_start, '%Y-%m-%d') AS s, strftime(window_end, '%Y-%m-%d') AS e, flag, count(*) AS n
         FROM (SELECT project_id, window_start, window_end, unnest(string_split(flags, ',')) AS flag
                 FROM ${tables.pages}
                WHERE ${span} AND flags IS NOT NULL AND (project_id, window_start, window_end) IN (${keys}))
        GROUP BY ALL ORDER BY flag`,
    );
    for (const load of mine) {
      const { projectId, window } = load.walk;
      const same = (r: { project_id: string; s: string; e: string }): boolean =>
        r.project_id === projectId && r.s === window.start && r.e === window.end;
      const lines = rowFlags.filter(same).map((r) => `${r.n} row${r.n === 1n ? '' : 's'} ${r.flag}`);
      const totalsFlags = totalFlags.find(same)?.flags;
      if (totalsFlags) lines.push(`totals ${totalsFlags}`);
      warnings.set(load.walk, [...load.walk.warnings, ...lines]);
    }
  }
  const bookkeeping = loads
    .map((l) => {
      const w = l.walk;
      const list = `[${(warnings.get(w) ?? []).map(sqlString).join(', ')}]::VARCHAR[]`;
      return `(${sqlString(w.metric)}, ${sqlString(w.projectId)}, ${date(w.window.start)}, ${date(w.window.end)}, ${ts(w.fetchedAt)}::TIMESTAMPTZ, ${sqlString(w.runId)}, ${w.rows}, ${w.pages}, ${w.requests}, ${w.walks}, ${list})`;
    })
    .join(', ');
  await tx.run(
    `INSERT${replacesBookkeeping ? ' OR REPLACE' : ''} INTO loaded_windows (metric, project_id, window_start, window_end, fetched_at, run_id, row_count, pages, requests, walks, warnings)
     VALUES ${bookkeeping}`,
  );
  await tx.run(vacuumSql(appendOnly, loads.reduce((rows, l) => rows + l.walk.rows, 0), options.backToBack ?? false));
  return warnings;
}

/**
 * The checkpoint at the write's commit (see OpenOptions.checkpointEachCommit) merges a
 * table's neighbouring row groups that fit in fewer, rewriting them, and compacts the ones
 * with deleted rows. A write that appends a row group or more and deletes nothing gains little
 * from it: its rows are in full row groups already, and what the merge rewrites is mostly the
 * part-filled one an earlier write left. Measured on 90 daily windows of 6,000 paths in two
 * writes of 41 windows (one thread, 4 runs each): 0.69-0.79 s of CPU to insert and commit against
 * 0.92-1.02 s, and 6.3 bytes a row on disk against 7.8. Nor is a smaller append that follows
 * the run's previous load back to back (`backToBack`: a fast run's): merged, it rewrites the
 * part-filled row groups the loads just before it left, the next load leaves more, and the
 * blocks the merge frees stay in the file. Exports of 90 daily windows of 6,000 paths, with
 * such appends merged: 15.1-20.4 bytes a row on disk in 36 runs (and 2-12 of 31-40 blocks
 * free in 8 more); left alone: 15.1-17.0 in 16 runs of a scratch copy, 15.6-17.0 in 10 of
 * this code (1-2 blocks free). A write that replaces windows, or a small append after a pause
 * (a nightly sync's few windows, a backfill at the API's pace), is merged as usual, and with
 * it the row groups a fast run left: small row groups do not pile up over the years. The
 * setting is the process's (DuckDB's); every open resets it.
 */
function vacuumSql(appendOnly: boolean, rows: number, backToBack: boolean): string {
  return appendOnly && (rows >= ROW_GROUP_ROWS || backToBack) ? 'SET max_vacuum_tasks = 0' : 'RESET max_vacuum_tasks';
}
