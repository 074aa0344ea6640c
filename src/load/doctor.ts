/**
 * `docpipe doctor`, the pure part: facts about the database and its spool (gathered by
 * ./doctor-io.ts) become findings, and findings become the repairs `--fix` may make. No I/O
 * here, so every rule can be tested with plain objects.
 *
 * The invariants:
 * - grain: a keyless row table holds each (project_id, window_start, window_end, key) once:
 *   the page tables (key `path`), `searches` (`search_query`) and `feedback_by_page`
 *   (`path`). The tables have no key on purpose (DESIGN §4); the loader keeps the grain.
 * - windows: every `loaded_windows` row, of every endpoint, has its totals row (where the
 *   metric has a totals table), and its `row_count` is the number of keys its row table holds
 *   for the window (for events, at most that: a later window takes over an event it fetched
 *   again; for caller stats, its one row).
 * - orphans: no row of a window table belongs to a window without a `loaded_windows` row (the
 *   loader replaces only windows it knows of, so an orphan would be doubled by the next load).
 * - spool: no walk is left over (completed but not loaded, or abandoned), no copy an
 *   interrupted write left behind, and no request journal of an ended process waits to be
 *   moved into `request_log`.
 * - views: every view and macro of sql/views.sql is there (the open that writes makes a
 *   dropped view again, not a dropped macro).
 * - runs: no run is left `running` by a process that is gone.
 */
import type { ProcessRef } from '../core/process-identity.js';
import { grainOf, windowKey, type Metric, type Window } from '../core/domain.js';
import { isSuperseded } from './spool-recovery.js';
import type { SpooledThreadFacts } from '../spool/thread-spool.js';

export const CHECKS = ['grain', 'windows', 'orphans', 'views', 'spool', 'journal', 'runs'] as const;
export type Check = (typeof CHECKS)[number];

/** `finding`: an invariant is broken; `info`: worth knowing, not a fault; `fixed`: repaired by --fix. */
export const STATUSES = ['ok', 'finding', 'fixed', 'info'] as const;
export type Status = (typeof STATUSES)[number];

/**
 * An incomplete walk that started longer ago than this, and whose file has not been written for
 * as long (a run may have resumed it since it started), is abandoned: --fix discards it. @default 7 days
 */
export const STALE_WALK_MS = 7 * 24 * 3_600_000;
/**
 * A copy that a write of a whole spool file (a walk rewritten, a thread body, a kept answer)
 * makes before it renames it into place, not written for this long and whose process is gone,
 * was left by a process killed between the two: --fix removes it. Such a write takes
 * milliseconds; a copy a process on another host is writing (the spool on a shared disk)
 * is fresh. @default 1 hour
 */
export const STALE_TEMP_MS = 3_600_000;

/** A repair `--fix` may make, as data; ./doctor-io.ts carries it out. */
export type Repair =
  /** Keep one row of each path of the window. */
  | { kind: 'dedupe'; metric: Metric; projectId: string; window: Window }
  /** Delete the page and totals rows of a window that has no loaded_windows row. */
  | { kind: 'delete-orphans'; metric: Metric; projectId: string; window: Window }
  | { kind: 'mark-crashed'; runId: string }
  /** Load the completed walks in the spool (or discard those the database has overtaken). */
  | { kind: 'recover-walks' }
  /**
   * Remove an abandoned incomplete walk from the spool, if it is still as doctor found it (its
   * walk's start and its whole pages): a run that resumed or restarted it since keeps it.
   */
  | { kind: 'discard-walk'; metric: Metric; projectId: string; window: Window; startedAt: number | null; pages: number }
  /** Move the request journals of ended processes into request_log. */
  | { kind: 'ingest-journal' }
  /** Make the views and macros of sql/views.sql again. */
  | { kind: 'remake-views' }
  /** Load the assistant thread bodies in the spool that no live run holds. */
  | { kind: 'load-threads' }
  /** Remove the copies interrupted writes left in the spool (paths under it), each if still stale. */
  | { kind: 'remove-temps'; paths: string[] }
  /** Remove the new database files ended processes left beside the database (names in its folder), each if still stale. */
  | { kind: 'remove-database-temps'; names: string[] };

export interface Finding {
  check: Check;
  status: Status;
  detail: string;
  /** What --fix does about it; absent when nothing is safe to do. */
  repair?: Repair;
}

/** One window of one metric as the database holds it. */
export interface WindowFacts {
  metric: Metric;
  projectId: string;
  window: Window;
  /** Whether loaded_windows has the window. */
  loaded: boolean;
  /** loaded_windows.row_count (null when not recorded). */
  rowCount: number | null;
  /** loaded_windows.fetched_at, ms (null when not loaded). */
  fetchedAt: number | null;
  /** Whether the metric has a totals table. @default true */
  hasTotalsTable?: boolean;
  /**
   * Events (feedback, assistant conversations) move to the window that fetched them last: the
   * row table may hold fewer keys than row_count, never more. @default false
   */
  eventsMayMoveOut?: boolean;
  /** Whether the totals table has the window. */
  totals: boolean;
  /** What a row's key is, as the report names it. @default 'path' */
  key?: string;
  /** The row table, as the report names it. @default 'the page table' */
  table?: string;
  /** Rows of the window in its row table. */
  rows: number;
  /** Distinct keys among them (paths, search queries). */
  paths: number;
  /** Keys held more than once. */
  duplicatePaths: number;
  /** One of those keys, to name in the report. */
  duplicateExample: string | null;
  /** Of those keys, the ones whose copies differ (in any column but run_id). @default 0 */
  differingPaths?: number;
  /** One of those, to name in the report. */
  differingExample?: string | null;
}

/** A `runs` row with status `running`, and whether its process is alive (null: cannot tell). */
export interface RunFacts {
  runId: string;
  command: string | null;
  startedAt: number | null;
  pid: number | null;
  host: string | null;
  alive: boolean | null;
  /** Not alive, but its pid is: another process has it now. */
  pidReused?: boolean;
  /** Told by its heartbeat in the spool (another host, container or boot), not by its pid. */
  byHeartbeat?: boolean;
  /** The run's end, kept in the spool because the database was held when it ended (../spool/run-ends.ts). */
  keptEnd?: { status: string; exitCode: number };
}

/** A window folder in the spool. */
export interface WalkFacts {
  metric: Metric;
  projectId: string;
  window: Window;
  /** The walk's owner names a live process other than this one. */
  ownerLive: boolean;
  ownerPid: number | null;
  /** The done line: the walk reached its end (fetchedAt and rows from it), or null. */
  completed: { fetchedAt: number; rows: number } | null;
  /** The walk line's startedAt, ms (null: no walk state). */
  startedAt: number | null;
  /** How long ago (ms, on the system clock) the walk's file was last written; null if unknown. */
  idleMs: number | null;
  /** Whole pages in the walk's pages file. */
  pages: number;
}

/** A request-journal file in the spool. */
export interface JournalFacts {
  name: string;
  pid: number;
  /** Written by a live process other than this one: in use. */
  live: boolean;
}

/**
 * An answer the API gave while the database was held, kept in the spool (../spool/kept-jobs.ts):
 * the job a prompt created (`created`, keyed by the prompt), or a job's answer to a follow-up
 * message (`sent`, keyed by the message).
 */
export interface KeptAnswerFacts {
  kind: 'created' | 'sent';
  projectId: string;
  key: string;
  jobId: string | null;
}

/** A copy a write of a whole spool file was making (../spool/spool.ts, writeFileAtomic). */
export interface TempFileFacts {
  /** Under the spool. */
  path: string;
  pid: number;
  /** Its pid is a live process on this host. */
  live: boolean;
  /** How long ago it was last written (ms). */
  idleMs: number;
}

/** Pure: the processes of `of` (leftovers), each once (`12, 34`). */
const pidsOf = (of: readonly { pid: number }[]): string => [...new Set(of.map((t) => t.pid))].join(', ');

/** Pure: a copy whose process is gone and which has not been written for STALE_TEMP_MS: safe to remove. */
export const isStaleTemp = (t: TempFileFacts): boolean => !t.live && t.idleMs > STALE_TEMP_MS;

/**
 * A new database file a process made beside the database before it linked it into place
 * (../load/database.ts, createWhole), left there because the process was killed: before the
 * link (a file of DuckDB's headers only), or after it and before it removed its own name.
 */
export interface DatabaseTempFacts extends TempFileFacts {
  /** It is a second name of the database file itself (linked into place already): nothing in it but what the database holds. */
  linked: boolean;
}

/**
 * Pure: a new file whose process is gone, and which is the database file under a second name
 * (its removal removes only that name) or was not written for STALE_TEMP_MS (a process on
 * another host sharing the folder may be making a fresh one): safe to remove.
 */
export const isStaleDatabaseTemp = (t: DatabaseTempFacts): boolean => !t.live && (t.linked || t.idleMs > STALE_TEMP_MS);

export interface DoctorFacts {
  windows: readonly WindowFacts[];
  runs: readonly RunFacts[];
  walks: readonly WalkFacts[];
  journals: readonly JournalFacts[];
  /** Assistant thread bodies in the spool. @default none */
  threads?: readonly SpooledThreadFacts[];
  /** Answers of created jobs and sent messages kept in the spool. @default none */
  keptAnswers?: readonly KeptAnswerFacts[];
  /** Copies writes of whole spool files were making. @default none */
  temps?: readonly TempFileFacts[];
  /** New database files processes were making beside the database. @default none */
  databaseTemps?: readonly DatabaseTempFacts[];
  /** The views and macros of sql/views.sql the database lacks, e.g. `macro window_complete`. @default none */
  missingViews?: readonly string[];
}

/** The views and macros of sql/views.sql: one dropped by hand breaks the report and the views that use it. */
export function viewFindings(missing: readonly string[]): Finding[] {
  if (missing.length === 0) return [{ check: 'views', status: 'ok', detail: 'every view and macro of sql/views.sql is there' }];
  return [{
    check: 'views',
    status: 'finding',
    detail: `${missing.join(', ')} missing (dropped by hand?): the views that use ${missing.length === 1 ? 'it' : 'them'} and docpipe report fail; --fix makes the views and macros of sql/views.sql again`,
    repair: { kind: 'remake-views' },
  }];
}

export const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
export const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;

/** `visitors docs [2026-03-05, 2026-03-06)`: a window as the report names it. */
export function windowLabel(w: { metric: Metric; projectId: string; window: Window }): string {
  return `${w.metric} ${w.projectId} [${w.window.start}, ${w.window.end})`;
}

type RunOwner = { pid: number | null; host: string | null; process_start?: string | null; started_ms?: number | bigint | null };

/** Pure: the process a `runs` row names; null for a run of release 0.1.0 (no pid recorded). */
export function runProcess(run: RunOwner): ProcessRef | null {
  if (run.pid === null) return null;
  return { pid: run.pid, host: run.host ?? '', ...(run.process_start ? { start: run.process_start } : {}) };
}

/**
 * Pure: whether a `running` run's process is alive, by `alive` (../spool/liveness.ts, told when
 * the run began); null when it cannot be told.
 */
export function runIsAlive(run: RunOwner, alive: (ref: ProcessRef, recordedAtMs: number | null) => boolean | null): boolean | null {
  const ref = runProcess(run);
  // Runs of release 0.1.0 recorded no pid: one still `running` was cut off.
  return ref === null ? false : alive(ref, run.started_ms === undefined || run.started_ms === null ? null : Number(run.started_ms));
}

/**
 * What mends a loaded window whose bookkeeping is off (not --fix: its rows may be all there is
 * of it, if the API no longer serves that range): fetching it again, which replaces it whole.
 */
/** Pure: a word as a POSIX shell reads it back: as it is when it is safe, else in single quotes. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function refreshHint(w: { metric: Metric; projectId: string; window: Window }): string {
  return `to fetch it again: docpipe export ${w.metric} --project ${shellWord(w.projectId)} --from ${w.window.start} --to ${w.window.end} --window ${grainOf(w.window)} --refresh`;
}

/** Grain, windows and orphans. */
export function windowFindings(windows: readonly WindowFacts[]): Finding[] {
  const grain: Finding[] = [];
  const bookkeeping: Finding[] = [];
  const orphans: Finding[] = [];
  let rows = 0;
  let loaded = 0;
  for (const w of windows) {
    const { metric, projectId, window } = w;
    const label = windowLabel(w);
    const key = w.key ?? 'path';
    const table = w.table ?? 'the page table';
    rows += w.rows;
    if (w.duplicatePaths > 0) {
      const found = `${label}: ${plural(w.rows - w.paths, 'extra row')} for ${plural(w.duplicatePaths, key)} held more than once` +
        (w.duplicateExample === null ? '' : ` (e.g. ${w.duplicateExample})`);
      const differing = w.differingPaths ?? 0;
      // Deleting a copy that differs would pick one version of the data by guess: the window
      // is fetched again instead, which replaces it whole.
      grain.push(
        differing === 0
          ? { check: 'grain', status: 'finding', detail: found, repair: { kind: 'dedupe', metric, projectId, window } }
          : {
              check: 'grain',
              status: 'finding',
              detail: `${found}; the copies of ${plural(differing, key)} differ` +
                `${w.differingExample ? ` (e.g. ${w.differingExample})` : ''}, so --fix keeps them all; ${refreshHint(w)}`,
            },
      );
    }
    if (w.loaded) {
      loaded++;
      if (!w.totals && (w.hasTotalsTable ?? true)) bookkeeping.push({ check: 'windows', status: 'finding', detail: `${label}: loaded, but has no totals row; ${refreshHint(w)}` });
      // Keys, not rows: a doubled row is the grain check's finding, not a miscount.
      const miscounted = w.rowCount !== null && (w.eventsMayMoveOut ? w.paths > w.rowCount : w.paths !== w.rowCount);
      if (miscounted) {
        bookkeeping.push({
          check: 'windows',
          status: 'finding',
          detail:
            `${label}: loaded_windows.row_count is ${w.rowCount}, ${table} holds ${plural(w.paths, key)}` +
            `${w.eventsMayMoveOut ? ' (more than its walk saw)' : ''}; ${refreshHint(w)}`,
        });
      }
    } else if (w.rows > 0 || w.totals) {
      const what = [w.rows > 0 ? `${plural(w.rows, 'row')} in ${table}` : '', w.totals ? 'a totals row' : ''].filter(Boolean).join(' and ');
      orphans.push({
        check: 'orphans',
        status: 'finding',
        detail: `${label}: ${what} but no loaded_windows row`,
        repair: { kind: 'delete-orphans', metric, projectId, window },
      });
    }
  }
  const ok = (check: Check, detail: string): Finding[] => [{ check, status: 'ok', detail }];
  return [
    ...(grain.length > 0 ? grain : ok('grain', `${plural(rows, 'row')} in the window tables, each key once per window`)),
    ...(bookkeeping.length > 0 ? bookkeeping : ok('windows', `${plural(loaded, 'loaded window')} of every endpoint, each with its totals and row count`)),
    ...(orphans.length > 0 ? orphans : ok('orphans', 'no rows outside a loaded window')),
  ];
}

/** Runs left `running`. */
export function runFindings(runs: readonly RunFacts[]): Finding[] {
  const found = runs.map((r): Finding => {
    const what = `run ${r.runId}${r.command ? ` (${r.command})` : ''}${r.startedAt === null ? '' : `, started ${iso(r.startedAt)}`}`;
    const where = `pid ${r.pid ?? '?'} on host ${r.host ?? '?'}`;
    if (r.keptEnd) {
      return {
        check: 'runs',
        status: 'finding',
        detail: `${what}: status running, but it ended (${r.keptEnd.status}, exit ${r.keptEnd.exitCode}) while the database was held; its end is kept in the spool: --fix records it`,
        repair: { kind: 'mark-crashed', runId: r.runId },
      };
    }
    if (r.alive === true) {
      const detail = r.byHeartbeat ? `running, ${where}, whose heartbeat in the spool is fresh` : `running, pid ${r.pid ?? '?'} is alive`;
      return { check: 'runs', status: 'info', detail: `${what}: ${detail}` };
    }
    if (r.alive === null) {
      return { check: 'runs', status: 'info', detail: `${what}: running on host ${r.host ?? '?'}, which cannot be checked from here` };
    }
    const why =
      r.pid === null
        ? 'no pid was recorded (release 0.1.0)'
        : r.byHeartbeat
          ? `its process (${where}) has not beaten in the spool for 5 minutes`
          : r.pidReused
            ? `pid ${r.pid} is another process now`
            : `pid ${r.pid} is gone`;
    return {
      check: 'runs',
      status: 'finding',
      detail: `${what}: status running, but ${why}: it crashed`,
      repair: { kind: 'mark-crashed', runId: r.runId },
    };
  });
  return found.length > 0 ? found : [{ check: 'runs', status: 'ok', detail: 'no run left running' }];
}

/**
 * The spool beside the database: walks and request journals. `loaded` gives the window as
 * the database holds it, to tell a completed walk the database has since overtaken.
 */
export function spoolFindings(
  walks: readonly WalkFacts[],
  journals: readonly JournalFacts[],
  loaded: (walk: WalkFacts) => WindowFacts | undefined,
  now: number,
  threads: readonly SpooledThreadFacts[] = [],
  keptAnswers: readonly KeptAnswerFacts[] = [],
  temps: readonly TempFileFacts[] = [],
): Finding[] {
  const spool = walks.map((w): Finding => {
    const label = windowLabel(w);
    if (w.ownerLive) {
      return { check: 'spool', status: 'info', detail: `${label}: in use by process ${w.ownerPid ?? '?'}` };
    }
    if (w.completed) {
      const have = loaded(w);
      const newer = isSuperseded(
        w.completed,
        have?.fetchedAt === null || have === undefined ? undefined : { ...have.window, fetchedAt: have.fetchedAt },
      );
      return {
        check: 'spool',
        status: 'finding',
        detail: newer
          ? `${label}: a completed walk (fetched ${iso(w.completed.fetchedAt)}) the database has overtaken: --fix discards it`
          : `${label}: a completed walk of ${plural(w.completed.rows, 'row')} (fetched ${iso(w.completed.fetchedAt)}) not loaded: --fix loads it, no request needed`,
        repair: { kind: 'recover-walks' },
      };
    }
    const idle = w.idleMs === null || w.idleMs > STALE_WALK_MS;
    if (w.startedAt === null || (now - w.startedAt > STALE_WALK_MS && idle)) {
      const since =
        w.startedAt === null
          ? 'with no walk state (nothing to resume)'
          : `started ${iso(w.startedAt)}${w.idleMs === null ? '' : ' and not written since'}, more than 7 days ago`;
      return {
        check: 'spool',
        status: 'finding',
        detail: `${label}: an incomplete walk ${since}: --fix discards it`,
        repair: { kind: 'discard-walk', metric: w.metric, projectId: w.projectId, window: w.window, startedAt: w.startedAt, pages: w.pages },
      };
    }
    return {
      check: 'spool',
      status: 'info',
      detail: `${label}: an incomplete walk started ${iso(w.startedAt)}: the next export of the window resumes it`,
    };
  });
  // Thread bodies paid for and not loaded: one line a project.
  for (const projectId of [...new Set(threads.map((t) => t.projectId))]) {
    const mine = threads.filter((t) => t.projectId === projectId);
    const held = mine.filter((t) => t.held).length;
    const free = mine.length - held;
    if (free > 0) {
      spool.push({
        check: 'spool',
        status: 'finding',
        detail: `assistant ${projectId}: ${plural(free, 'thread body', 'thread bodies')} fetched and not loaded: --fix loads them, no request needed`,
        repair: { kind: 'load-threads' },
      });
    }
    if (held > 0) spool.push({ check: 'spool', status: 'info', detail: `assistant ${projectId}: ${plural(held, 'thread body', 'thread bodies')} held by a run at work` });
  }
  // Not a fault: the next run of the project records each before it decides anything.
  for (const kept of keptAnswers) {
    spool.push({
      check: 'spool',
      status: 'info',
      detail: kept.kind === 'created'
        ? `jobs ${kept.projectId}: job ${kept.jobId ?? '(no id)'} of prompt ${kept.key} was created while the database was held; ` +
          'its answer is kept in the spool: the next jobs batch of the project records it and follows the job'
        : `jobs ${kept.projectId}: message ${kept.key} to job ${kept.jobId ?? '(no id)'} was sent while the database was held; ` +
          'its answer is kept in the spool: the next `jobs message` run of the project records it and follows the job',
    });
  }
  // A copy still being written (or whose process lives on) is no fault: its write is under way.
  const stale = temps.filter(isStaleTemp);
  if (stale.length > 0) {
    spool.push({
      check: 'spool',
      status: 'finding',
      detail: `${plural(stale.length, 'copy', 'copies')} of spool files left by interrupted writes of ended processes (pid ${pidsOf(stale)}), e.g. ${stale[0]!.path}: --fix removes them`,
      repair: { kind: 'remove-temps', paths: stale.map((t) => t.path) },
    });
  }
  const leftover = journals.filter((j) => !j.live);
  const journal: Finding[] = journals
    .filter((j) => j.live)
    .map((j) => ({ check: 'journal', status: 'info', detail: `${j.name}: in use by process ${j.pid}` }));
  if (leftover.length > 0) {
    journal.unshift({
      check: 'journal',
      status: 'finding',
      detail: `${plural(leftover.length, 'request-journal file')} of ended processes (pid ${pidsOf(leftover)}) not yet in request_log: --fix moves them in`,
      repair: { kind: 'ingest-journal' },
    });
  }
  return [
    ...(spool.length > 0 ? spool : [{ check: 'spool', status: 'ok', detail: 'no walk or thread body left over' } satisfies Finding]),
    ...(journal.length > 0 ? journal : [{ check: 'journal', status: 'ok', detail: 'every request is in request_log' } satisfies Finding]),
  ];
}

/** Pure: the new database files that ended processes left beside the database (a finding, under the spool's check: leftovers of interrupted writes). */
export function databaseTempFindings(temps: readonly DatabaseTempFacts[]): Finding[] {
  const stale = temps.filter(isStaleDatabaseTemp);
  if (stale.length === 0) return [];
  return [{
    check: 'spool',
    status: 'finding',
    detail: `${plural(stale.length, 'new database file', 'new database files')} beside the database left by ended processes that were making it (pid ${pidsOf(stale)}), e.g. ${stale[0]!.path}: --fix removes them`,
    repair: { kind: 'remove-database-temps', names: stale.map((t) => t.path) },
  }];
}

/** Every finding, in check order. */
export function diagnose(facts: DoctorFacts, now: number): Finding[] {
  const byWindow = new Map(facts.windows.map((w) => [`${w.metric}\u0000${w.projectId}\u0000${windowKey(w.window)}`, w]));
  const loaded = (w: WalkFacts): WindowFacts | undefined => byWindow.get(`${w.metric}\u0000${w.projectId}\u0000${windowKey(w.window)}`);
  const all = [
    ...windowFindings(facts.windows),
    ...viewFindings(facts.missingViews ?? []),
    ...spoolFindings(facts.walks, facts.journals, loaded, now, facts.threads, facts.keptAnswers, facts.temps),
    ...databaseTempFindings(facts.databaseTemps ?? []),
    ...runFindings(facts.runs),
  ];
  return CHECKS.flatMap((check) => all.filter((f) => f.check === check));
}

/** The repairs --fix makes for `findings`, each once. */
export function planRepairs(findings: readonly Finding[]): Repair[] {
  const seen = new Set<string>();
  const repairs: Repair[] = [];
  for (const f of findings) {
    if (f.status !== 'finding' || !f.repair) continue;
    const key = JSON.stringify(f.repair);
    if (seen.has(key)) continue;
    seen.add(key);
    repairs.push(f.repair);
  }
  return repairs;
}

/** How many findings of each status: the summary line. */
export function countByStatus(findings: readonly Finding[]): Record<Status, number> {
  const counts: Record<Status, number> = { ok: 0, finding: 0, fixed: 0, info: 0 };
  for (const f of findings) counts[f.status]++;
  return counts;
}

/** Whether any finding is left (exit 1). */
export function hasFindings(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.status === 'finding');
}
