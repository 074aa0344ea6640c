/**
 * The export orchestrator: read what is loaded, plan, then walk and load each window that
 * needs it, most recent first. One window's failure does not stop the others; a spent
 * budget, an interrupt or a refused key stops the run cleanly with everything loaded so far
 * kept.
 */
import { fetchAnalyticsPage } from '../api/analytics.js';
import type { HttpClient } from '../api/http-client.js';
import type { RequestBudget } from '../api/request-budget.js';
import type { Metric } from '../api/schemas.js';
import type { Clock } from '../core/clock.js';
import {
  BudgetExhaustedError,
  DatabaseError,
  DocpipeError,
  EXIT,
  HttpError,
  InterruptedError,
  RateLimitError,
  type ExitCode,
} from '../core/errors.js';
import type { Database } from '../load/database.js';
import type { RequestLog } from '../load/request-log.js';
import { readLoadedWindows, replaceWindows, type WindowLoad } from '../load/window-store.js';
import { walkWindow, type WalkOptions, type WalkResult } from './page-walker.js';
import { planExport, type FetchReason } from './plan-export.js';
import { checkCounts, checkRow, summariseFlags } from './row-quality.js';
import type { Window } from './windows.js';

export interface ExportTask {
  metric: Metric;
  projectId: string;
  windows: readonly Window[];
}

export type WindowEvent =
  | {
      kind: 'loaded';
      metric: Metric;
      projectId: string;
      window: Window;
      reason: FetchReason;
      rows: number;
      pages: number;
      requests: number;
      walks: number;
      warnings: readonly string[];
    }
  | { kind: 'failed'; metric: Metric; projectId: string; window: Window; requests: number; error: string };

export interface ExportOptions {
  db: Database;
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
  /** Buffered request log, committed with each window and flushed at the end. */
  requestLog?: RequestLog;
  signal?: AbortSignal;
  /** Told how many windows will be fetched, before the first request. */
  onPlan?: (plan: { toFetch: number; skipped: number }) => void;
  onWindow?: (event: WindowEvent) => void;
}

/** Most windows one load transaction takes (and how far fetching may run ahead of loading). */
const MAX_BATCH_WINDOWS = 4;

export type StopReason = 'budget' | 'interrupted' | 'fatal';

export interface ExportSummary {
  windowsPlanned: number;
  windowsSkipped: number;
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
  window: Window;
  reason: FetchReason;
}

/** Pure: a walked window, checked row by row, as the loader stores it. */
function toWindowLoad(
  entry: { item: PlannedFetch; walked: WalkResult; requests: number },
  fetchedAt: number,
  runId: string,
): WindowLoad {
  const { item, walked, requests } = entry;
  const rows = walked.rows.map(checkRow);
  const totals = checkCounts(walked.totals);
  return {
    metric: item.metric,
    projectId: item.projectId,
    window: item.window,
    rows,
    totals,
    fetchedAt,
    runId,
    pages: walked.pages,
    requests,
    walks: walked.walks,
    warnings: [...walked.warnings, ...summariseFlags(rows, totals)],
  };
}

function stopReasonOf(error: unknown): StopReason | null {
  if (error instanceof InterruptedError) return 'interrupted';
  if (error instanceof BudgetExhaustedError || error instanceof RateLimitError) return 'budget';
  // A refused key or a missing scope fails every later request too; the database is ours.
  if (error instanceof HttpError && (error.status === 401 || error.status === 403)) return 'fatal';
  if (error instanceof DatabaseError || !(error instanceof DocpipeError)) return 'fatal';
  return null;
}

export async function runExport(options: ExportOptions): Promise<ExportSummary> {
  const { db, client, budget, clock } = options;
  const fetches: PlannedFetch[] = [];
  let planned = 0;
  let skipped = 0;
  for (const task of options.tasks) {
    const loaded = await readLoadedWindows(db, task.metric, task.projectId);
    const decisions = planExport({
      windows: task.windows,
      loaded,
      now: clock.now(),
      lookbackDays: options.lookbackDays ?? 2,
      refresh: options.refresh ?? false,
    });
    planned += decisions.length;
    for (const d of decisions) {
      if (d.action === 'skip') skipped++;
      else fetches.push({ metric: task.metric, projectId: task.projectId, window: d.window, reason: d.reason });
    }
  }
  // Most recent first: when the budget runs out, the freshest data is what landed.
  fetches.sort((a, b) => (a.window.end === b.window.end ? 0 : a.window.end < b.window.end ? 1 : -1));
  options.onPlan?.({ toFetch: fetches.length, skipped });

  const summary: ExportSummary = {
    windowsPlanned: planned,
    windowsSkipped: skipped,
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

  // Fetched windows queue for a loader that runs beside the fetching (DuckDB works on its
  // own threads). The loader takes everything queued into one transaction, so windows that
  // arrive faster than DuckDB commits share a commit. A load failure is a database failure:
  // it stops the run once the fetch in progress returns.
  const queue: { item: PlannedFetch; walked: WalkResult; requests: number }[] = [];
  let loaderRunning = false;
  let loader: Promise<void> = Promise.resolve();
  let loadError: unknown;
  const drain = async (): Promise<void> => {
    while (queue.length > 0 && loadError === undefined) {
      const batch = queue.splice(0, MAX_BATCH_WINDOWS);
      const loads = batch.map((entry) => toWindowLoad(entry, clock.now(), options.runId));
      try {
        await replaceWindows(db, loads, options.requestLog ? (tx) => options.requestLog!.flush(tx) : undefined);
      } catch (error) {
        loadError = error;
        break;
      }
      loads.forEach((load, i) => {
        summary.windowsLoaded++;
        summary.rows += load.rows.length;
        summary.warnings += load.warnings.length;
        options.onWindow?.({
          kind: 'loaded',
          metric: load.metric,
          projectId: load.projectId,
          window: load.window,
          reason: batch[i]!.item.reason,
          rows: load.rows.length,
          pages: load.pages,
          requests: load.requests,
          walks: load.walks,
          warnings: load.warnings,
        });
      });
    }
    // Set in the same synchronous step as the empty check, so no queued window is stranded.
    loaderRunning = false;
  };
  const enqueue = async (entry: (typeof queue)[number]): Promise<void> => {
    queue.push(entry);
    if (!loaderRunning) {
      loaderRunning = true;
      loader = drain().catch((error: unknown) => {
        loadError ??= error;
        loaderRunning = false;
      });
    }
    // Back-pressure: do not fetch far ahead of what DuckDB has loaded.
    if (queue.length >= MAX_BATCH_WINDOWS) await loader;
  };

  for (const [index, item] of fetches.entries()) {
    if (loadError !== undefined) break;
    if (options.signal?.aborted) {
      summary.stopped = 'interrupted';
      summary.windowsLeft = fetches.length - index;
      break;
    }
    const before = budget.requestsUsed;
    let walked: WalkResult;
    try {
      walked = await walkWindow(
        (offset) =>
          fetchAnalyticsPage(client, {
            metric: item.metric,
            projectId: item.projectId,
            dateFrom: item.window.start,
            dateTo: item.window.end,
            offset,
            ...(options.signal ? { signal: options.signal } : {}),
          }),
        options.walk,
      );
    } catch (error) {
      const stop = stopReasonOf(error);
      const text = error instanceof Error ? error.message : String(error);
      if (stop === 'budget' || stop === 'interrupted') {
        summary.stopped = stop;
        summary.stopMessage = text;
        summary.windowsLeft = fetches.length - index;
        break;
      }
      summary.windowsFailed++;
      options.onWindow?.({
        kind: 'failed',
        metric: item.metric,
        projectId: item.projectId,
        window: item.window,
        requests: budget.requestsUsed - before,
        error: text,
      });
      if (stop === 'fatal') {
        summary.stopped = 'fatal';
        summary.stopMessage = text;
        summary.windowsLeft = fetches.length - index - 1;
        if (!(error instanceof DocpipeError) || error instanceof DatabaseError) loadError = error;
        break;
      }
      continue;
    }
    await enqueue({ item, walked, requests: budget.requestsUsed - before });
  }
  await loader;
  if (loadError !== undefined) throw loadError;
  summary.requests = budget.requestsUsed;
  summary.exitCode =
    summary.stopped === 'interrupted'
      ? EXIT.interrupted
      : summary.stopped === 'budget'
        ? EXIT.budget
        : summary.windowsFailed > 0
          ? EXIT.failed
          : EXIT.ok;
  return summary;
}
