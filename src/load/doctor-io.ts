/**
 * `docpipe doctor`, the I/O part: reads the facts ./doctor.ts judges (a few set-based
 * queries, a look at the spool that changes nothing), and carries out the repairs `--fix`
 * plans. The database repairs are one transaction; completed walks are loaded with the
 * export's own loader, through the recovery the export runs at its start.
 */
import { realpathSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ENDPOINTS } from '../api/endpoints.js';
import { namesIn, tempFiles } from '../core/files.js';
import { windowKey, PAGE_METRICS, type LoadedWindow, type Metric, type PageMetric, type Window } from '../core/domain.js';
import { journalOfLiveProcess } from '../spool/request-journal.js';
import { checkFor, isProcessAlive, thisProcess, type ProcessRef } from '../core/process-identity.js';
import { recordAlive } from '../spool/liveness.js';
import { dropRunEnd, readRunEnds, type RunEnd } from '../spool/run-ends.js';
import { databaseOfSpool, spoolDirFor, walkOwnerLive, type Spool, type SpoolWalk } from '../spool/spool.js';
import { surveyThreads, type SpooledThreadFacts } from '../spool/thread-spool.js';
import { readAllKeptJobs } from '../spool/kept-jobs.js';
import { loadSpooledThreads } from './thread-store.js';
import { runOwnerColumns } from './runs.js';
import { databaseReason, type Executor } from './database.js';
import {
  plural,
  runIsAlive,
  runProcess,
  isStaleTemp,
  isStaleDatabaseTemp,
  windowLabel,
  type KeptAnswerFacts,
  type TempFileFacts,
  type DatabaseTempFacts,
  type DoctorFacts,
  type Finding,
  type JournalFacts,
  type Repair,
  type RunFacts,
  type WalkFacts,
  type WindowFacts,
} from './doctor.js';
import { missingViewObjects, remakeViews } from './migrations.js';
import { claimCompletedWalks, findCompletedWalks, loadSpooledWalks, type SpooledLoad } from './spool-recovery.js';
import { sqlString } from './sql-files.js';
import type { Store } from './store.js';
import { METRIC_TABLES, readLoadedWindows } from './window-store.js';

const toNumber = (v: number | bigint | null): number | null => (v === null ? null : Number(v));

/**
 * The table of a window's rows, by metric. The keyless ones (the page tables, searches,
 * feedback by page) rely on the loader for their grain (project_id, window_start, window_end,
 * key); the others have a primary key, and are checked for their bookkeeping and orphans.
 */
interface WindowTable {
  table: string;
  /** The column (or, for a table of one row a window, a constant) that tells a window's rows apart. */
  key: string;
  /** What the report calls a key. */
  keyName: string;
  /** The window's totals table, if the metric has one. */
  totals: string | null;
  /**
   * Events (keyed by the API's id) are filed under the window they were fetched in, and a
   * later window's load moves an event it fetched again: a window may hold fewer than its
   * walk saw, never more.
   */
  eventsMayMoveOut?: boolean;
}

const WINDOW_TABLES: Record<Metric, WindowTable> = {
  ...(Object.fromEntries(
    PAGE_METRICS.map((m) => [m, { table: METRIC_TABLES[m].pages, key: 'path', keyName: 'path', totals: METRIC_TABLES[m].totals }]),
  ) as Record<PageMetric, WindowTable>),
  searches: { table: ENDPOINTS.searches.table, key: 'search_query', keyName: 'search query', totals: 'search_totals' },
  'feedback-by-page': { table: ENDPOINTS['feedback-by-page'].table, key: 'path', keyName: 'path', totals: null },
  feedback: { table: ENDPOINTS.feedback.table, key: 'id', keyName: 'feedback id', totals: null, eventsMayMoveOut: true },
  assistant: { table: ENDPOINTS.assistant.table, key: 'id', keyName: 'conversation id', totals: null, eventsMayMoveOut: true },
  // One row a window (the walk counts it as one row).
  'caller-stats': { table: ENDPOINTS['caller-stats'].table, key: `'caller-stats'`, keyName: 'row', totals: null },
};

/** A row's data, for telling copies apart: every column but the run that loaded it. */
const rowData = 'struct_pack(*COLUMNS(* EXCLUDE (run_id)))';

/**
 * Days of windows (by window_start) checked at a time. The grain check counts each window's
 * keys, a hash table as large as the rows it reads: on a ten-year database of daily windows of
 * 6,000 paths (21.9 million rows) it held 2.9 GB at once; a quarter at a time holds a fortieth.
 */
const FACTS_CHUNK_DAYS = 92;

/**
 * Every window of every metric that any of loaded_windows, the totals table or the row table
 * knows of, with what each holds of it. One pass over each row table, a quarter of windows at
 * a time.
 */
export async function readWindowFacts(db: Executor): Promise<WindowFacts[]> {
  const facts: WindowFacts[] = [];
  for (const [metric, tables] of Object.entries(WINDOW_TABLES) as [Metric, WindowTable][]) {
    const sources = [`SELECT window_start FROM ${tables.table}`, `SELECT window_start FROM loaded_windows WHERE metric = $metric`];
    if (tables.totals !== null) sources.push(`SELECT window_start FROM ${tables.totals}`);
    const chunks = await db.all<{ from: string }>(
      `WITH span AS (SELECT min(window_start) AS lo, max(window_start) AS hi FROM (${sources.join(' UNION ALL ')}))
       SELECT strftime(r, '%Y-%m-%d') AS "from" FROM span, range(span.lo::TIMESTAMP, span.hi + 1, INTERVAL ${FACTS_CHUNK_DAYS} DAY) t(r)`,
      { metric },
    );
    const mine: WindowFacts[] = [];
    for (const { from } of chunks) mine.push(...(await windowFactsFrom(db, metric, tables, from)));
    // By project, then window, across the quarters.
    const cmp = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
    mine.sort((a, b) => cmp(a.projectId, b.projectId) || cmp(a.window.start, b.window.start) || cmp(a.window.end, b.window.end));
    facts.push(...mine);
  }
  return facts;
}

/** readWindowFacts for the windows that start in the FACTS_CHUNK_DAYS from `from`. */
async function windowFactsFrom(db: Executor, metric: Metric, tables: WindowTable, from: string): Promise<WindowFacts[]> {
  const inRange = `window_start >= $from::DATE AND window_start < $from::DATE + ${FACTS_CHUNK_DAYS}`;
  const rows = await db.all<{
    project_id: string;
    s: string;
    e: string;
    loaded: boolean;
    row_count: number | bigint | null;
    fetched_ms: number | bigint | null;
    totals: boolean;
    rows: number | bigint;
    paths: number | bigint;
    dup_paths: number | bigint;
    dup_example: string | null;
    differing: number | bigint;
    differing_example: string | null;
  }>(
    `WITH pages AS (
       SELECT project_id, window_start, window_end, count(*) AS paths, sum(n) AS rows,
              count(*) FILTER (WHERE n > 1) AS dup_paths, min(k) FILTER (WHERE n > 1) AS dup_example,
              count(*) FILTER (WHERE versions > 1) AS differing, min(k) FILTER (WHERE versions > 1) AS differing_example
         FROM (SELECT project_id, window_start, window_end, ${tables.key} AS k, count(*) AS n, count(DISTINCT ${rowData}) AS versions
                 FROM ${tables.table} WHERE ${inRange} GROUP BY ALL)
        GROUP BY ALL),
     bookkeeping AS (
       SELECT project_id, window_start, window_end, row_count, epoch_ms(fetched_at) AS fetched_ms, true AS loaded
         FROM loaded_windows WHERE metric = $metric AND ${inRange}),
     totals AS (${
       tables.totals === null
         ? `SELECT NULL::VARCHAR AS project_id, NULL::DATE AS window_start, NULL::DATE AS window_end, true AS totals WHERE false`
         : `SELECT project_id, window_start, window_end, true AS totals FROM ${tables.totals} WHERE ${inRange}`
     })
     SELECT project_id, strftime(window_start, '%Y-%m-%d') AS s, strftime(window_end, '%Y-%m-%d') AS e,
            coalesce(loaded, false) AS loaded, row_count, fetched_ms, coalesce(totals, false) AS totals,
            coalesce(rows, 0) AS rows, coalesce(paths, 0) AS paths, coalesce(dup_paths, 0) AS dup_paths, dup_example,
            coalesce(differing, 0) AS differing, differing_example
       FROM bookkeeping
       FULL JOIN totals USING (project_id, window_start, window_end)
       FULL JOIN pages USING (project_id, window_start, window_end)`,
    { metric, from },
  );
  return rows.map((r) => ({
    metric,
    projectId: r.project_id,
    window: { start: r.s, end: r.e },
    loaded: r.loaded,
    rowCount: toNumber(r.row_count),
    fetchedAt: toNumber(r.fetched_ms),
    hasTotalsTable: tables.totals !== null,
    ...(tables.eventsMayMoveOut ? { eventsMayMoveOut: true } : {}),
    totals: r.totals,
    key: tables.keyName,
    table: tables.table,
    rows: Number(r.rows),
    paths: Number(r.paths),
    duplicatePaths: Number(r.dup_paths),
    duplicateExample: r.dup_example,
    differingPaths: Number(r.differing),
    differingExample: r.differing_example,
  }));
}

/** Records a run's end in `runs`: its status, exit code and summary. */
export async function writeRunEnd(tx: Executor, runId: string, end: RunEnd): Promise<void> {
  await tx.run(
    `UPDATE runs SET finished_at = $at::TIMESTAMPTZ, status = $status, exit_code = $code,
            summary = $summary::JSON WHERE run_id = $id`,
    { id: runId, at: new Date(end.finishedAt).toISOString(), status: end.status, code: end.exitCode, summary: JSON.stringify(end.summary) },
  );
}

/**
 * Marks these runs `crashed` if they are still `running`, but for a run whose end the spool
 * kept (../spool/run-ends.ts): that end is recorded instead. Returns the ids marked crashed.
 */
export async function markRunsCrashed(tx: Executor, runIds: readonly string[], now: number): Promise<string[]> {
  if (runIds.length === 0) return [];
  const ends = readRunEnds(await spoolRootOf(tx));
  // The kept files stay until the write has committed: the next start removes those of runs
  // no longer running (and doctor --fix, after its write).
  for (const runId of runIds) {
    const end = ends.get(runId);
    if (end !== undefined) await writeRunEnd(tx, runId, end);
  }
  const crashed = runIds.filter((id) => !ends.has(id));
  if (crashed.length === 0) return [];
  const marked = await tx.all<{ run_id: string }>(
    `UPDATE runs SET status = 'crashed', finished_at = $at::TIMESTAMPTZ
      WHERE status = 'running' AND run_id IN (${crashed.map((id) => sqlString(id)).join(', ')})
     RETURNING run_id`,
    { at: new Date(now).toISOString() },
  );
  return marked.map((r) => r.run_id);
}

/**
 * How this process tells whether the process of a run of the database `db` stands in is
 * alive: processes elsewhere keep their heartbeat in the database's spool.
 */
export async function liveness(db: Executor): Promise<(ref: ProcessRef, recordedAtMs?: number | null) => boolean | null> {
  const root = await spoolRootOf(db);
  return (ref, recordedAtMs) => recordAlive(root, ref, recordedAtMs);
}

/** The spool of the database `db` stands in. */
export async function spoolRootOf(db: Executor): Promise<string> {
  const [row] = await db.all<{ path: string | null }>(`SELECT path FROM duckdb_databases() WHERE database_name = current_database()`);
  return spoolDirFor(row?.path ?? ':memory:');
}

/**
 * Runs recorded as `running`, with whether their process is alive (null: cannot be told from
 * here). `root`: the database's spool, when the caller knows it already (see spoolRootOf).
 */
export async function readRunFacts(db: Executor, root?: string): Promise<RunFacts[]> {
  const ownerColumns = await runOwnerColumns(db);
  const rows = await db.all<{
    run_id: string;
    command: string | null;
    started_ms: number | bigint | null;
    pid: number | null;
    host: string | null;
    process_start: string | null;
  }>(
    `SELECT run_id, command, epoch_ms(started_at) AS started_ms, ${ownerColumns}
       FROM runs WHERE status = 'running' ORDER BY started_at, run_id`,
  );
  if (rows.length === 0) return [];
  const spool = root ?? (await spoolRootOf(db));
  const ends = readRunEnds(spool);
  return rows.map((r) => {
    const end = ends.get(r.run_id);
    const ref = runProcess(r);
    const how = ref && checkFor(ref, thisProcess());
    const alive = runIsAlive(r, (p, at) => recordAlive(spool, p, at));
    return {
      runId: r.run_id,
      command: r.command,
      startedAt: toNumber(r.started_ms),
      pid: r.pid,
      host: r.host,
      alive,
      ...(how === 'heartbeat' ? { byHeartbeat: true } : {}),
      ...(alive === false && how === 'pid' && isProcessAlive(ref!.pid) ? { pidReused: true } : {}),
      ...(end ? { keptEnd: { status: end.status, exitCode: end.exitCode } } : {}),
    };
  });
}


/**
 * What the walks `listed` hold, read without changing anything (pages are counted, not
 * repaired). A walk whose file is gone since the listing (a run loaded it and removed it
 * meanwhile: a run's walks go just after its write, while doctor may hold the file) is left
 * out, rather than read as an empty walk with nothing to resume.
 */
export function walkFacts(listed: readonly SpoolWalk[], root: string): WalkFacts[] {
  return listed.flatMap((w): WalkFacts[] => {
    // One read: the file may go between reads.
    const file = w.read();
    const writtenAt = w.writtenAt();
    if (writtenAt === null) return []; // gone
    const owner = file.owner;
    const done = file.done;
    return [{
      metric: w.series.metric,
      projectId: w.series.projectId,
      window: w.window,
      ownerLive: walkOwnerLive(file, root),
      ownerPid: owner?.pid ?? null,
      completed: done ? { fetchedAt: done.fetchedAt, rows: done.rows } : null,
      startedAt: file.state?.startedAt ?? null,
      idleMs: writtenAgo(writtenAt),
      pages: file.pages.length,
    }];
  });
}

/**
 * What the spool holds, read without changing anything (pages are counted, not repaired). A journal is in use when its process lives, the rule by which
 * the journal itself decides what a write may move.
 */
export function surveySpool(spool: Spool): { walks: WalkFacts[]; journals: JournalFacts[]; threads: SpooledThreadFacts[]; keptAnswers: KeptAnswerFacts[]; temps: TempFileFacts[] } {
  const walks = walkFacts(spool.walks(), spool.root);
  const journals = namesIn(spool.requestsDir).flatMap((name): JournalFacts[] => {
    const owner = journalOfLiveProcess(name, spool.requestsDir);
    return owner ? [{ name, pid: owner.pid, live: owner.live && !owner.mine }] : [];
  });
  const keptAnswers = (['created', 'sent'] as const).flatMap((kind) =>
    readAllKeptJobs(spool.root, kind).map((k): KeptAnswerFacts => ({ kind, projectId: k.projectId, key: k.key, jobId: k.job.id })),
  );
  return { walks, journals, threads: surveyThreads(spool), keptAnswers, temps: surveyTemps(spool.root) };
}

/**
 * The copies interrupted writes may have left in the spool, with their process's life and age
 * (a spool file rewritten whole: a walk, a thread body, a kept answer).
 */
function surveyTemps(root: string): TempFileFacts[] {
  return tempFiles(root, { recursive: true }).map((t) => ({ path: t.path, pid: t.pid, live: isProcessAlive(t.pid), idleMs: writtenAgo(t.writtenAt) ?? 0 }));
}

/**
 * Removes those of `names` (in folder `dir`, as doctor found them) that a fresh look still finds
 * among `stale`: a copy written to, or whose process came back, since is kept. How many.
 */
function removeStillStale(dir: string, names: readonly string[], stale: readonly { path: string }[]): number {
  const still = new Set(stale.map((t) => t.path));
  let removed = 0;
  for (const name of names.filter((n) => still.has(n))) {
    rmSync(join(dir, name), { force: true });
    removed++;
  }
  return removed;
}

/** The database file of `spool` where it is (a --db that is a symbolic link: the file it leads to, beside which new files were made). */
function databaseFileOf(spool: Spool): string | undefined {
  const database = databaseOfSpool(spool.root);
  if (database === undefined) return undefined;
  try {
    return realpathSync(database);
  } catch {
    return undefined; // gone: nothing is beside it
  }
}

/**
 * The new database files processes were making beside `database` (../load/database.ts,
 * createWhole: `<file>.<pid>.tmp`, with DuckDB's `.wal` if one was left), by name in its folder.
 */
function surveyDatabaseTemps(database: string | undefined): DatabaseTempFacts[] {
  if (database === undefined) return [];
  const file = statSync(database, { throwIfNoEntry: false });
  return tempFiles(dirname(database))
    .filter((t) => t.of === basename(database))
    .map((t) => ({
      path: t.path,
      pid: t.pid,
      live: isProcessAlive(t.pid),
      idleMs: writtenAgo(t.writtenAt) ?? 0,
      linked: file !== undefined && t.ino === file.ino && t.dev === file.dev,
    }));
}

/** How long ago (ms, on the system clock, as file times are) a file was written at `writtenAt`. */
const writtenAgo = (writtenAt: number | null): number | null => (writtenAt === null ? null : Math.max(0, Date.now() - writtenAt));

/** Everything ./doctor.ts judges: the database's windows and runs, and the spool. */
export async function readDoctorFacts(db: Executor, spool: Spool): Promise<DoctorFacts> {
  const windows = await readWindowFacts(db);
  const runs = await readRunFacts(db);
  const missingViews = await missingViewObjects(db);
  return { windows, runs, missingViews, ...surveySpool(spool), databaseTemps: surveyDatabaseTemps(databaseFileOf(spool)) };
}

const date = (day: string): string => `DATE ${sqlString(day)}`;
const windowTuple = (r: { projectId: string; window: Window }): string =>
  `(${sqlString(r.projectId)}, ${date(r.window.start)}, ${date(r.window.end)})`;

export interface RepairContext {
  store: Store;
  spool: Spool;
  now: number;
  /** The fixing run: names the rows it loads (thread bodies, whose own run is not recorded). */
  runId: string;
}

type Targeted<K extends Repair['kind']> = Extract<Repair, { kind: K }>;

/**
 * Carries out `repairs` and says what was done, one `fixed` finding per thing repaired.
 * Database repairs first, in one transaction (which also moves the request journals of
 * ended processes in), so that a window's orphan rows are gone before a spooled walk of
 * that window is loaded; then the spool.
 */
export async function applyRepairs(repairs: readonly Repair[], ctx: RepairContext): Promise<Finding[]> {
  const of = <K extends Repair['kind']>(kind: K): Targeted<K>[] => repairs.filter((r): r is Targeted<K> => r.kind === kind);
  const fixed: Finding[] = [];
  const dedupe = of('dedupe');
  const orphans = of('delete-orphans');
  const crashed = of('mark-crashed');
  const journal = of('ingest-journal');
  const views = of('remake-views');
  let keptRecorded: string[] = [];
  if (dedupe.length + orphans.length + crashed.length + journal.length + views.length > 0) {
    fixed.push(
      ...(await ctx.store.write(async (tx) => {
        const done: Finding[] = [];
        for (const r of dedupe) {
          const deleted = await deleteDuplicates(tx, r);
          done.push({
            check: 'grain',
            status: 'fixed',
            detail: `${windowLabel(r)}: deleted ${plural(deleted, 'extra copy', 'extra copies')}, kept one row per ${WINDOW_TABLES[r.metric].keyName} (safe: each deleted row repeated the grain of a row kept)`,
          });
        }
        for (const r of orphans) {
          const deleted = await deleteOrphans(tx, r);
          done.push({
            check: 'orphans',
            status: 'fixed',
            detail: `${windowLabel(r)}: deleted ${plural(deleted.pages, 'row')} and ${plural(deleted.totals, 'totals row')} that no loaded window owned (the next export of the window fetches it again)`,
          });
        }
        if (views.length > 0) {
          await remakeViews(tx);
          done.push({ check: 'views', status: 'fixed', detail: 'made the views and macros of sql/views.sql again' });
        }
        const kept = readRunEnds(ctx.spool.root);
        keptRecorded = crashed.map((r) => r.runId).filter((id) => kept.has(id));
        const marked = await markRunsCrashed(tx, crashed.map((r) => r.runId), ctx.now);
        for (const runId of marked) done.push({ check: 'runs', status: 'fixed', detail: `run ${runId}: marked crashed` });
        for (const { runId } of crashed) {
          const end = kept.get(runId);
          if (end) done.push({ check: 'runs', status: 'fixed', detail: `run ${runId}: recorded the end it kept in the spool (${end.status})` });
        }
        return done;
      })),
    );
    // Committed: the ends it recorded are in runs now.
    for (const runId of keptRecorded) dropRunEnd(ctx.spool.root, runId);
    // The write moved them in (a store without a journal moves nothing).
    if (journal.length > 0 && ctx.store.journal) {
      fixed.push({ check: 'journal', status: 'fixed', detail: 'moved the request journals of ended processes into request_log' });
    }
  }
  for (const r of of('discard-walk')) {
    const walk = ctx.spool.walk(r, r.window);
    // Claimed first: a process that took the walk up meanwhile keeps it.
    if (walk.completed() !== null || !walk.claim()) continue;
    // A run that resumed or restarted the walk after doctor looked (doctor may have waited for
    // the database meanwhile) paid for what it added: the walk is not abandoned.
    const now = walk.read();
    if (now.pages.length !== r.pages || (now.state?.startedAt ?? null) !== r.startedAt) {
      walk.release();
      fixed.push({ check: 'spool', status: 'info', detail: `${windowLabel(r)}: an export wrote to the incomplete walk after doctor looked: left for the next export` });
      continue;
    }
    walk.remove();
    fixed.push({ check: 'spool', status: 'fixed', detail: `${windowLabel(r)}: discarded an abandoned incomplete walk` });
  }
  if (of('recover-walks').length > 0) fixed.push(...(await recoverWalks(ctx)));
  const temps = of('remove-temps').flatMap((r) => r.paths);
  if (temps.length > 0) {
    const root = ctx.spool.root;
    const removed = removeStillStale(root, temps, surveyTemps(root).filter(isStaleTemp));
    if (removed > 0) fixed.push({ check: 'spool', status: 'fixed', detail: `removed ${plural(removed, 'copy', 'copies')} of spool files that interrupted writes left` });
  }
  const newFiles = of('remove-database-temps').flatMap((r) => r.names);
  if (newFiles.length > 0) {
    const database = databaseFileOf(ctx.spool);
    const removed = database === undefined ? 0 : removeStillStale(dirname(database), newFiles, surveyDatabaseTemps(database).filter(isStaleDatabaseTemp));
    if (removed > 0) fixed.push({ check: 'spool', status: 'fixed', detail: `removed ${plural(removed, 'new database file', 'new database files')} that ended processes left beside the database` });
  }
  if (of('load-threads').length > 0) {
    const loaded = await loadSpooledThreads(ctx.store, ctx.spool, ctx.runId);
    if (loaded > 0) fixed.push({ check: 'spool', status: 'fixed', detail: `loaded ${plural(loaded, 'assistant thread body', 'assistant thread bodies')} from the spool, no request made` });
  }
  return fixed;
}

async function deleteDuplicates(tx: Executor, r: Targeted<'dedupe'>): Promise<number> {
  const { table } = WINDOW_TABLES[r.metric];
  // Only copies of the same data go (whichever run loaded them): the first stored stays. Copies
  // that differ are left for a refresh of the window (doctor.ts plans no repair for them).
  const deleted = await tx.all(
    `DELETE FROM ${table} WHERE rowid IN (
       SELECT rowid FROM (
         SELECT rowid, row_number() OVER (PARTITION BY project_id, window_start, window_end, ${rowData} ORDER BY rowid) AS copy
           FROM ${table} WHERE (project_id, window_start, window_end) IN (${windowTuple(r)}))
        WHERE copy > 1)
     RETURNING project_id`,
  );
  return deleted.length;
}

async function deleteOrphans(tx: Executor, r: Targeted<'delete-orphans'>): Promise<{ pages: number; totals: number }> {
  const tables = WINDOW_TABLES[r.metric];
  // Checked again here: a window loaded since the check is not an orphan any more.
  const orphan = (table: string): string => `(project_id, window_start, window_end) IN (${windowTuple(r)})
    AND NOT EXISTS (SELECT 1 FROM loaded_windows l
                     WHERE l.metric = ${sqlString(r.metric)} AND l.project_id = ${table}.project_id
                       AND l.window_start = ${table}.window_start AND l.window_end = ${table}.window_end)`;
  const pages = await tx.all(`DELETE FROM ${tables.table} WHERE ${orphan(tables.table)} RETURNING project_id`);
  const totals = tables.totals === null ? [] : await tx.all(`DELETE FROM ${tables.totals} WHERE ${orphan(tables.totals)} RETURNING project_id`);
  return { pages: pages.length, totals: totals.length };
}

/** Loads the completed walks in the spool, as an export would at its start. */
async function recoverWalks(ctx: RepairContext): Promise<Finding[]> {
  const completed = findCompletedWalks(ctx.spool);
  if (completed.length === 0) return [];
  const seriesKey = (s: { metric: Metric; projectId: string }): string => `${s.metric}\u0000${s.projectId}`;
  const series = new Map(completed.map(({ walk }) => [seriesKey(walk), walk]));
  const loaded = await ctx.store.read(async (db) => {
    const all = new Map<string, Map<string, LoadedWindow>>();
    for (const [key, s] of series) all.set(key, await readLoadedWindows(db, s.metric, s.projectId));
    return all;
  });
  const claimed = claimCompletedWalks(completed, (walk) => loaded.get(seriesKey(walk))?.get(windowKey(walk.window)));
  const fixed: Finding[] = claimed.discarded.map(({ walk }) => ({
    check: 'spool',
    status: 'fixed',
    detail: `${windowLabel(walk)}: discarded a completed walk the database had overtaken`,
  }));
  if (claimed.toLoad.length > 0) {
    let result: SpooledLoad;
    try {
      result = await loadSpooledWalks(ctx.store, claimed.toLoad);
    } finally {
      // Not loaded: the walks stay in the spool, free for the next run of this process.
      for (const c of claimed.toLoad) c.spooled.release();
    }
    for (const { walk: c, error } of result.failed) {
      // Pages DuckDB cannot read (damaged on disk) are no use kept: the next export fetches the window again.
      c.spooled.remove();
      fixed.push({
        check: 'spool',
        status: 'fixed',
        detail: `${windowLabel(c.walk)}: discarded a completed walk whose pages cannot be loaded (the next export fetches the window again): ${databaseReason(error)}`,
      });
    }
    for (const c of result.loaded) {
      c.spooled.remove();
      fixed.push({
        check: 'spool',
        status: 'fixed',
        detail: `${windowLabel(c.walk)}: loaded a completed walk of ${plural(c.walk.rows, 'row')} from the spool (no request)`,
      });
    }
  }
  return fixed;
}
