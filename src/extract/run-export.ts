/**
 * The export orchestrator. First it loads what an earlier run left in the spool (completed
 * walks cost no request); then it reads what is loaded, plans, and walks each window that
 * needs it, most recent first, into the spool. Completed walks flow through a bounded
 * pipeline to a loader that takes whatever has queued into one short write (the database
 * file is held only for that write). One window's failure does not stop the others; a spent
 * budget, an interrupt, a locked database or a refused key stops the run cleanly, with every
 * received page kept in the spool. Overlapping runs share the windows: a window another run
 * walks is skipped, and once another run is seen at work, so is one it loaded after this
 * run's plan.
 */
import { fetchAnalyticsPage } from '../api/analytics.js';
import { DEFAULT_FAILED_IN_ROW_LIMIT, FailedInRow } from '../api/failure-breaker.js';
import type { HttpClient } from '../api/http-client.js';
import type { RequestBudget } from '../api/request-budget.js';
import type { Clock } from '../core/clock.js';
import { windowKey, type LoadedWindow, type Metric, type Window } from '../core/domain.js';
import { EXIT, WalkTakenOverError, type ApiFailingError, type ExitCode } from '../core/errors.js';
import { replacesStop, runExitCode, stopReasonOf, type StopReason } from '../core/outcome.js';
import { BoundedPipeline } from '../core/pipeline.js';
import { databaseReason } from '../load/database.js';
import type { Store } from '../load/store.js';
import { otherRunsLive } from '../load/runs.js';
import { readLoadedWindows, ROW_GROUP_ROWS } from '../load/window-store.js';
import { claimCompletedWalks, loadSpooledWalks, scanWalks } from '../load/spool-recovery.js';
import { otherRunsJournalling } from '../spool/request-journal.js';
import type { CompletedWalk, Spool, SpoolWalk } from '../spool/spool.js';
import { driftWarning, walkWindow, type WalkOptions } from './page-walker.js';
import { orderAllFetches, planExport, type FetchReason } from './plan-export.js';
import type { Grain } from './windows.js';

export interface ExportTask {
  metric: Metric;
  projectId: string;
  /** The grain of `windows`: several grains take turns, coarsest first. */
  grain: Grain;
  windows: readonly Window[];
}

/** Why a window was loaded: the plan's reason, or `spool` for a walk an earlier run completed. */
export type LoadReason = FetchReason | 'spool';

export type WindowEvent =
  | {
      kind: 'loaded';
      metric: Metric;
      projectId: string;
      window: Window;
      reason: LoadReason;
      rows: number;
      pages: number;
      requests: number;
      walks: number;
      warnings: readonly string[];
    }
  | { kind: 'failed'; metric: Metric; projectId: string; window: Window; requests: number; error: string }
  | { kind: 'busy'; metric: Metric; projectId: string; window: Window; detail: string };

export interface ExportOptions {
  store: Store;
  spool: Spool;
  client: HttpClient;
  budget: RequestBudget;
  clock: Clock;
  runId: string;
  tasks: readonly ExportTask[];
  /** Fetch every window, loaded or not. @default false */
  refresh?: boolean;
  /** @default 2 */
  lookbackDays?: number;
  walk?: WalkOptions;
  signal?: AbortSignal;
  /** Told how many windows will be fetched, once the plan is read and before the first request. */
  onPlan?: (plan: { toFetch: number; skipped: number; fromSpool: number }) => void;
  onWindow?: (event: WindowEvent) => void;
  /** Told when no more requests will be made, before the last loads. */
  onFetched?: () => Promise<void>;
  /** The database was created by this run (Store.holdForStart): nothing is loaded, no read needed. @default false */
  newDatabase?: boolean;
  /** Database work the loads follow (the run's record); its failure fails the first load. */
  beforeLoads?: Promise<unknown>;
}

/**
 * Most windows one load transaction takes. Fetched windows are safe in the spool, so the
 * loader can afford to wait a little for a fuller batch: fewer, larger writes cost DuckDB
 * less and leave the file to readers for longer.
 */
const MAX_BATCH_WINDOWS = 64;
/**
 * Most rows one load takes (unless one window has more): two of DuckDB's row groups. Each
 * commit starts new row groups, and a checkpoint merges neighbours that fit in fewer,
 * rewriting them; batches of whole row groups, as full as possible, leave nothing to merge
 * (and a batch of a row group or more is no longer merged at all: window-store's vacuumSql).
 * Measured, before that, on 90 daily windows of 6,000 paths (64 KiB blocks): batches of 20 windows (one row
 * group) took 1.06 s of CPU and 17.2 bytes a row on disk, of 21 windows (just over one) 1.21 s
 * and 19.8 bytes, of 8 windows 2.14 s and 25.8 bytes. With 256 KiB blocks, 16 alternating
 * exports each: two row groups a batch against one cut DuckDB's CPU from 0.87 s to 0.67 s and
 * the export's time by 64 ms (paired median, faster in 11 of 16), at the same peak RSS (236
 * against 233 MB); three row groups were slower (their last batch, a third of the 90 windows,
 * is loaded after the last request) and peaked at 276 MB.
 */
const FULL_BATCH_ROWS = 2 * ROW_GROUP_ROWS;
/** How long a batch that is not full waits for more windows. */
const LOAD_LINGER_MS = 1_000;
/**
 * A load that begins within this long of the end of the run's load before it follows it back
 * to back, and leaves the merging of its row groups to a later write (window-store's
 * vacuumSql). A fast run's loads are a linger and a load apart; at the API's pace (100
 * requests an hour) a window takes minutes, and each load is merged as it comes.
 */
const BACK_TO_BACK_MS = 10_000;

export interface ExportSummary {
  windowsPlanned: number;
  windowsSkipped: number;
  /** Of the skipped windows, those left to another live run (it walks them, or took their walk over), not loaded yet. */
  windowsLeftToOthers: number;
  /** Windows loaded from walks an earlier run had completed in the spool (no request). */
  windowsFromSpool: number;
  windowsLoaded: number;
  windowsFailed: number;
  windowsLeft: number;
  rows: number;
  requests: number;
  warnings: number;
  stopped: StopReason | null;
  stopMessage: string | null;
  exitCode: ExitCode;
}

interface PlannedFetch {
  metric: Metric;
  projectId: string;
  grain: Grain;
  window: Window;
  reason: FetchReason;
}

interface QueuedLoad {
  spooled: SpoolWalk;
  walk: CompletedWalk;
  reason: LoadReason;
}

const seriesKey = (metric: Metric, projectId: string): string => `${metric}\u0000${projectId}`;
const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The summary of an export that has done nothing yet. */
export function emptyExportSummary(): ExportSummary {
  return {
    windowsPlanned: 0,
    windowsSkipped: 0,
    windowsLeftToOthers: 0,
    windowsFromSpool: 0,
    windowsLoaded: 0,
    windowsFailed: 0,
    windowsLeft: 0,
    rows: 0,
    requests: 0,
    warnings: 0,
    stopped: null,
    stopMessage: null,
    exitCode: EXIT.ok,
  };
}

export async function runExport(options: ExportOptions): Promise<ExportSummary> {
  const { store, spool, client, budget, clock } = options;
  const summary = emptyExportSummary();

  // Completed walks in the spool that no live process owns: load them, unless the database
  // already has a newer copy of the window. A walk another run holds means runs overlap.
  const { completed, othersActive } = scanWalks(spool);

  // One short read for everything the plan needs, and whether another run is going.
  const series = new Map<string, { metric: Metric; projectId: string }>();
  for (const t of [...options.tasks, ...completed.map((c) => c.walk)]) series.set(seriesKey(t.metric, t.projectId), t);
  let othersRunning = false;
  const loaded = options.newDatabase
    ? new Map<string, Map<string, LoadedWindow>>()
    : await store.read(async (db) => {
        const all = new Map<string, Map<string, LoadedWindow>>();
        for (const [key, s] of series) all.set(key, await readLoadedWindows(db, s.metric, s.projectId));
        othersRunning = await otherRunsLive(db, options.runId);
        return all;
      });

  const loadedAtPlan = (s: { metric: Metric; projectId: string }, window: Window): LoadedWindow | undefined =>
    loaded.get(seriesKey(s.metric, s.projectId))?.get(windowKey(window));
  const { toLoad } = claimCompletedWalks(completed, (walk) => loadedAtPlan(walk, walk.window));
  const recovered: QueuedLoad[] = toLoad.map(({ spooled, walk }) => ({ spooled, walk, reason: 'spool' }));
  const recoveredKeys = new Set(
    recovered.map(({ walk }) => `${seriesKey(walk.metric, walk.projectId)}\u0000${windowKey(walk.window)}`),
  );

  const fetches: PlannedFetch[] = [];
  // A window the spool holds a completed walk of is loaded from it: counted as loaded (from
  // the spool), neither skipped nor fetched; one outside the tasks is planned by this run too.
  let recoveredPlanned = 0;
  for (const task of options.tasks) {
    const decisions = planExport({
      windows: task.windows,
      loaded: loaded.get(seriesKey(task.metric, task.projectId)) ?? new Map(),
      now: clock.now(),
      lookbackDays: options.lookbackDays ?? 2,
      refresh: options.refresh ?? false,
    });
    summary.windowsPlanned += decisions.length;
    for (const d of decisions) {
      const inSpool = recoveredKeys.has(`${seriesKey(task.metric, task.projectId)}\u0000${windowKey(d.window)}`);
      if (inSpool) recoveredPlanned++;
      else if (d.action === 'skip') summary.windowsSkipped++;
      else fetches.push({ metric: task.metric, projectId: task.projectId, grain: task.grain, window: d.window, reason: d.reason });
    }
  }
  summary.windowsPlanned += recovered.length - recoveredPlanned;
  const ordered = orderAllFetches(fetches);
  // The hour's requests, read now that the file is open for the plan (the first request would read them).
  if (ordered.length > 0) await budget.ready();
  options.onPlan?.({ toFetch: fetches.length, skipped: summary.windowsSkipped, fromSpool: recovered.length });

  // Another run is going (a walk it holds, its record in runs, its request journal, or a
  // window it claimed): before a window's first request, check that the other run has not
  // loaded it since this run's plan (that would be a fetch thrown away).
  let overlapping = othersActive || othersRunning;
  let handedOver = 0;
  /**
   * A window left to another run (it walks it, loaded it, or took its walk over): skipped,
   * and runs overlap. `loaded`: the other run has loaded it already.
   */
  const handOver = (w: { metric: Metric; projectId: string; window: Window }, detail: string, loaded = false): void => {
    overlapping = true;
    handedOver++;
    if (!loaded) summary.windowsLeftToOthers++;
    summary.windowsSkipped++;
    options.onWindow?.({ kind: 'busy', metric: w.metric, projectId: w.projectId, window: w.window, detail });
  };

  // Completed walks go to the loader; each batch is one short write, then its spool goes.
  let lastLoadEnded: number | undefined;
  const pipeline = new BoundedPipeline<QueuedLoad>({
    capacity: MAX_BATCH_WINDOWS * 2,
    maxBatch: MAX_BATCH_WINDOWS,
    weight: (q) => q.walk.rows,
    fullWeight: FULL_BATCH_ROWS,
    lingerMs: LOAD_LINGER_MS,
    consume: async (queued) => {
      await options.beforeLoads;
      // A walk another run took over while this one was stopped (see SpoolWalk.stillOwned)
      // is that run's to load, or already loaded by it.
      const batch = queued.filter((q) => q.spooled.stillOwned());
      for (const q of queued.filter((q) => !batch.includes(q))) handOver(q.walk, 'another docpipe run took over this walk before it was loaded');
      if (batch.length === 0) return;
      const backToBack = lastLoadEnded !== undefined && clock.now() - lastLoadEnded < BACK_TO_BACK_MS;
      const { loaded, warnings, failed } = await loadSpooledWalks(store, batch, { backToBack });
      lastLoadEnded = clock.now();
      // A walk whose pages cannot be loaded stays in the spool (doctor --fix discards it, and
      // the window is fetched again); the others are loaded all the same.
      for (const { walk: q, error } of failed) {
        summary.windowsFailed++;
        options.onWindow?.({ kind: 'failed', metric: q.walk.metric, projectId: q.walk.projectId, window: q.walk.window, requests: 0, error: `its spooled pages cannot be loaded (docpipe doctor --fix discards them, and the next run fetches the window again): ${databaseReason(error)}` });
      }
      await Promise.all(loaded.map((q) => q.spooled.removeAsync()));
      for (const q of loaded) {
        const w = q.walk;
        const lines = warnings.get(w) ?? w.warnings;
        summary.windowsLoaded++;
        if (q.reason === 'spool') summary.windowsFromSpool++;
        summary.rows += w.rows;
        summary.warnings += lines.length;
        options.onWindow?.({
          kind: 'loaded',
          metric: w.metric,
          projectId: w.projectId,
          window: w.window,
          reason: q.reason,
          rows: w.rows,
          pages: w.pages,
          requests: w.requests,
          walks: w.walks,
          warnings: lines,
        });
      }
    },
  });

  const stop = (reason: StopReason, error: unknown): void => {
    summary.stopped = reason;
    summary.stopMessage = message(error);
  };

  // Walks this run holds until it removes them (loaded) or lets them go (at its end).
  const held: SpoolWalk[] = recovered.map((q) => q.spooled);
  const loadedSincePlan = async (item: PlannedFetch): Promise<boolean> => {
    const now = await store.read((db) => readLoadedWindows(db, item.metric, item.projectId, item.window));
    const copy = now.get(windowKey(item.window));
    return copy !== undefined && copy.fetchedAt > (loadedAtPlan(item, item.window)?.fetchedAt ?? -Infinity);
  };

  // Every window failing alike (a changed schema, a key without the scope) stops the run.
  const failedInRow = new FailedInRow('windows');
  // A series (a metric of a project, at one grain) whose every window drifts on every walk (pages that are
  // empty but claim more, a listing that moves under each walk): each window is loaded with its
  // warning (DESIGN rule 5), but a run of them is an API failing (rule 11), which would spend the
  // hour's budget at a request a walk on windows that all come out short. After
  // DEFAULT_FAILED_IN_ROW_LIMIT in a row, the series' other windows are left for the next run,
  // the other series go on, and the run ends as 'failing' (exit 75). Counted per series, since
  // the windows of other series take turns with its own (other grains' too: long windows may
  // drift where one-page windows cannot).
  const driftedInSeries = new Map<string, FailedInRow>();
  const seriesGivenUp = new Map<string, ApiFailingError>();
  const driftSeries = (item: PlannedFetch): string => `${seriesKey(item.metric, item.projectId)}\u0000${item.grain}`;
  /** Why the first window left for a series given up on was left. */
  let driftLeft: ApiFailingError | undefined;
  // A project whose every window fails (a mistyped id: 404) is left for the rest of the run,
  // the other projects going on: its windows take turns with theirs, so the run's count above
  // starts over at each of theirs.
  const failedInProject = new Map<string, FailedInRow>();
  const projectsGivenUp = new Set<string>();
  /** Walks the planned windows in turn, each into the spool and on to the loader. */
  const fetchAll = async (): Promise<void> => {
    for (const q of recovered) await pipeline.push(q);
    for (const item of ordered) {
      if (projectsGivenUp.has(item.projectId)) continue; // left for the next run
      const drifting = seriesGivenUp.get(driftSeries(item));
      if (drifting) {
        driftLeft ??= drifting; // left for the next run too
        continue;
      }
      if (options.signal?.aborted) {
        stop('interrupted', options.signal.reason ?? 'interrupted');
        break;
      }
      // A run journalling now, or one that has been at work since this run began (it may
      // have ended since, having loaded windows after this run's plan).
      overlapping ||= store.journal?.othersAtWorkSinceStart() ?? otherRunsJournalling(spool.requestsDir, options.runId);
      const spooled = spool.walk(item, item.window);
      let claimed: boolean;
      try {
        claimed = spooled.claim();
      } catch (error) {
        // The spool cannot be written (a full disk, no file handles left): every later window
        // would fail the same way. What is loaded stays; the summary says why.
        stop('fatal', new Error(`cannot claim the walk of ${item.metric} ${item.window.start}..${item.window.end} in the spool: ${message(error)}`));
        break;
      }
      if (!claimed) {
        handOver(item, 'another docpipe run is walking this window');
        continue;
      }
      held.push(spooled);
      const before = budget.requestsUsed;
      let walk: CompletedWalk;
      try {
        // Claimed first: the other run cannot be loading it now, so what the read finds is final.
        if (overlapping && (await loadedSincePlan(item))) {
          spooled.remove();
          handOver(item, 'another docpipe run loaded this window after this run planned', true);
          continue;
        }
        walk = await walkWindow(
          (at) =>
            fetchAnalyticsPage(client, {
              metric: item.metric,
              projectId: item.projectId,
              dateFrom: item.window.start,
              dateTo: item.window.end,
              ...(typeof at === 'number' ? { offset: at } : { cursor: at }),
              ...(options.signal ? { signal: options.signal } : {}),
            }),
          spooled,
          { ...item, runId: options.runId, now: () => clock.now(), requestsSpent: () => budget.requestsUsed - before },
          options.walk,
        );
      } catch (error) {
        if (error instanceof WalkTakenOverError) {
          // This run was stopped long enough to be taken for gone: the window is the other
          // run's, and from here on a window it may have loaded meanwhile is checked for.
          handOver(item, message(error));
          continue;
        }
        // The pages received so far stay in the spool; the next walk of the window resumes there.
        const reason = stopReasonOf(error);
        if (reason !== null && reason !== 'fatal') {
          stop(reason, error);
          break;
        }
        summary.windowsFailed++;
        const ofProject = failedInProject.get(item.projectId) ?? new FailedInRow(`windows of project ${item.projectId}`);
        failedInProject.set(item.projectId, ofProject);
        const projectFailing = reason === 'fatal' ? undefined : ofProject.failed(message(error));
        if (projectFailing) projectsGivenUp.add(item.projectId);
        options.onWindow?.({
          ...item,
          kind: 'failed',
          requests: budget.requestsUsed - before,
          error: projectFailing
            ? `${message(error)}; ${ofProject.limit} windows of project ${item.projectId} in a row failed: its other windows are left for the next run`
            : message(error),
        });
        if (reason === 'fatal') {
          stop('fatal', error);
          break;
        }
        const failing = failedInRow.failed(message(error));
        if (failing) {
          stop('failing', failing);
          break;
        }
        continue;
      }
      failedInRow.succeeded();
      failedInProject.get(item.projectId)?.succeeded();
      await pipeline.push({ spooled, walk, reason: item.reason });
      const drift = driftWarning(walk);
      const series = driftSeries(item);
      if (drift === undefined) {
        driftedInSeries.delete(series);
        continue;
      }
      const inRow = driftedInSeries.get(series) ?? new FailedInRow(`${item.grain} windows of ${item.metric} for project ${item.projectId}`, DEFAULT_FAILED_IN_ROW_LIMIT, 'still drifted after every re-walk');
      driftedInSeries.set(series, inRow);
      const givenUp = inRow.failed(drift);
      if (givenUp) seriesGivenUp.set(series, givenUp);
    }
    // Nothing else stopped the run: a series that had windows left when it was given up on
    // stops it as the API failing.
    if (driftLeft !== undefined && summary.stopped === null) stop('failing', driftLeft);
  };

  let loadError: unknown;
  try {
    try {
      await fetchAll();
    } catch (error) {
      loadError = error; // only the loader's error reaches here (through push)
    }
    // Whatever completed is loaded, even when the run stops early; unless the file could not
    // be taken for the last loads (held past the lock wait, or a stop while waiting for it):
    // then the walks still waiting stay in the spool for the next run, and the load under way,
    // if any, ends before the summary is made.
    let lastLoads = true;
    try {
      await options.onFetched?.();
    } catch (error) {
      loadError ??= error;
      lastLoads = false;
    }
    try {
      if (lastLoads) await pipeline.close();
      else await pipeline.abandon();
    } catch (error) {
      loadError ??= error;
    }
  } finally {
    // What is left in the spool (unfinished, or not loaded) is free for the next run. A walk
    // whose release cannot be written (a full disk) is taken over once this process is gone.
    for (const spooled of held) {
      try {
        spooled.release();
      } catch {
        // as above
      }
    }
  }
  if (loadError !== undefined) {
    // A database held by someone else for too long is a clean stop, and so is Ctrl-C (SIGTERM)
    // while the loader waits for it: the spool keeps the pages.
    const reason = stopReasonOf(loadError);
    if (reason !== 'locked' && reason !== 'interrupted') throw loadError;
    if (replacesStop(summary.stopped, reason)) stop(reason, loadError);
  }
  if (summary.stopped !== null || projectsGivenUp.size > 0) {
    summary.windowsLeft = recovered.length + fetches.length - handedOver - summary.windowsLoaded - summary.windowsFailed;
  }
  summary.requests = budget.requestsUsed;
  summary.exitCode = runExitCode(summary.stopped, summary.windowsFailed > 0);
  return summary;
}
