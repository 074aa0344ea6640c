/**
 * The analytics half of the library: `exportAnalytics` (a date range) and `syncPipeline` (the
 * nightly incremental run). Both open the database, run the export, record the run and return
 * its summary; they never print and never exit. The CLI's `export` and `sync` are thin layers
 * over them.
 */
import { readFileSync } from 'node:fs';
import { FailureBreaker } from '../api/failure-breaker.js';
import { METRICS, type Metric, type Window } from '../core/domain.js';
import { EXIT, UsageError } from '../core/errors.js';
import { describeDuplicateKey, firstDuplicateKey } from '../core/json-keys.js';
import { runExitCode } from '../core/outcome.js';
import { isEventStream } from '../api/endpoints.js';
import { runThreads, type ThreadsSummary } from '../extract/run-threads.js';
import { isClosed, MAX_LOOKBACK_DAYS } from '../extract/plan-export.js';
import {
  checkPipelineConfig,
  futureStartWarning,
  planSyncSeries,
  resolveSyncProjects,
  type BudgetOverrides,
  type PipelineConfig,
} from '../extract/pipeline-config.js';
import { emptyExportSummary, runExport, type ExportSummary, type ExportTask, type WindowEvent } from '../extract/run-export.js';
import { GRAINS, checkNotFuture, planWindows, type Grain } from '../extract/windows.js';
import { finishRun, logCrashedRuns, newRunId, recordRunEnd, recordRunStart, runOutcome } from '../load/runs.js';
import { createSession, createWorkspace, type BudgetWait, type Session } from './session.js';
import { checkOptionNames, checkProjectId, COMMON_OPTION_NAMES, optionNames, requireKeptDb, resolveCommon, stopBeforeStart, withoutKey, yesNo, type CommonOptions, type ResolvedCommon, type StopBeforeStart } from './common.js';

/** The analytics budget of an organization (DESIGN §1). */
export const DEFAULT_REQUESTS_PER_HOUR = 100;

/** Longest wait for the hourly budget unless told otherwise: longer stops the run (exit code 75). */
export const DEFAULT_MAX_WAIT_MS = 60_000;

/** How long a `--wait` run sleeps on a 429 without Retry-After (see HttpClientOptions.unsaidRetryAfterMs). */
const UNSAID_RETRY_AFTER_MS = 600_000;

/** A run that may wait longer than the default for the budget (`--wait`): a backfill in one process. */
const waitsForBudget = (maxWaitMs: number): boolean => maxWaitMs > DEFAULT_MAX_WAIT_MS;

export interface AnalyticsHooks {
  /** Told how many windows will be fetched, before the first request. */
  onPlan?: (plan: { toFetch: number; skipped: number; fromSpool: number }) => void;
  /** Told as each window is loaded, fails, or is skipped because another process walks it. */
  onWindow?: (event: WindowEvent) => void;
  /** Told before the run sleeps for the hourly budget. @default a log line */
  onWait?: (wait: BudgetWait) => void;
  /** What the user can do, appended to the message of a stop on the budget (the CLI names its options). */
  budgetHints?: { hourly?: string; cap?: string };
}

export interface AnalyticsRunOptions extends CommonOptions, AnalyticsHooks {
  /** The organization's analytics budget. @default 100 (sync: the pipeline's `requestsPerHour`) */
  requestsPerHour?: number;
  /**
   * Longest single wait for the hourly budget; a longer one stops the run with exit code 75
   * and the work left for the next run. `Infinity` waits as long as it takes. @default 60_000
   */
  maxWaitMs?: number;
}

export interface ExportAnalyticsOptions extends AnalyticsRunOptions {
  /** One project id or several. */
  project: string | readonly string[];
  metric: Metric;
  /** First day, `YYYY-MM-DD` (UTC). */
  from: string;
  /** End day, exclusive like the API. */
  to: string;
  /** @default 'day' */
  window?: Grain;
  /** Fetch windows even if loaded and settled. @default false */
  refresh?: boolean;
  /** A window is settled once fetched this many days after it ended. @default 2 */
  lookbackDays?: number;
  /**
   * `assistant` only: also fetch the transcript of every thread the range's conversations
   * reference, into `assistant_messages` (one request per thread). @default false
   */
  threads?: boolean;
}

export interface SyncPipelineOptions extends AnalyticsRunOptions {
  /** A pipeline file (like `pipelines/nightly.json`), or its contents. @default 'pipelines/nightly.json' */
  pipeline?: string | Record<string, unknown>;
  /** Replaces the pipeline's project list. @default the pipeline's */
  projects?: readonly string[];
}

const RUN_OPTION_NAMES = [...COMMON_OPTION_NAMES, 'onPlan', 'onWindow', 'onWait', 'budgetHints', 'requestsPerHour', 'maxWaitMs'] as const;
const EXPORT_OPTION_NAMES = optionNames<ExportAnalyticsOptions>()([
  ...RUN_OPTION_NAMES, 'project', 'metric', 'from', 'to', 'window', 'refresh', 'lookbackDays', 'threads',
]);
const SYNC_OPTION_NAMES = optionNames<SyncPipelineOptions>()([...RUN_OPTION_NAMES, 'pipeline', 'projects']);

/** A run's summary, as the CLI prints it on its JSON summary line. */
export interface AnalyticsResult extends ExportSummary {
  command: string;
  runId: string;
  retries: number;
  /** With `threads`: how the thread transcripts went. */
  threads?: ThreadsSummary;
}

interface CoreOptions {
  command: string;
  tasks: ExportTask[];
  refresh: boolean;
  lookbackDays: number;
  perHour: number;
  maxRequests: number | undefined;
  maxWaitMs: number;
  /** `export assistant --threads`: then fetch the threads of these projects' conversations in the range. */
  threads?: { projects: string[]; range: Window };
}

function checkPerHour(value: number): number {
  if (!Number.isFinite(value) || value < 1) throw new UsageError(`invalid requestsPerHour '${String(value)}': expected a number >= 1`);
  return value;
}

function checkMaxWait(value: number): number {
  // A caller's value is checked as given: 'abc' < 0 is false, and would pass as a wait.
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) throw new UsageError(`invalid maxWaitMs '${String(value)}': expected milliseconds >= 0`);
  return value;
}

/** Opens the database, runs the export, records the run: what `export` and `sync` share. */
async function runAnalytics(common: ResolvedCommon, hooks: AnalyticsHooks, options: CoreOptions): Promise<AnalyticsResult> {
  requireKeptDb(common.workspace.db);
  const { clock, logger } = common;
  const runId = newRunId(clock.now());
  // DuckDB on one thread while loading: the other core is better spent fetching and parsing.
  const workspace = createWorkspace(common.workspace, runId, logger, { threads: 1, ...(common.signal ? { signal: common.signal } : {}) });
  const { store } = workspace;
  // Recording the run, reading the plan and the hour's requests share one open of the file,
  // released once the plan is made (before the first request).
  // A run that waits for the budget waits as long for a server's Retry-After: each such wait
  // is bounded by --max-wait and their number by maxRetryAfterWaits, so the request's own time
  // bound (300 s) must not end it after a wait it was given.
  const http = waitsForBudget(options.maxWaitMs)
    ? {
        ...common.http,
        maxRetryAfterMs: Math.max(common.http?.maxRetryAfterMs ?? 60_000, options.maxWaitMs),
        // A 429 that says not how long (another client of the organization spent the hour) is
        // slept through too: 10 minutes a time (or --max-wait, if shorter), up to
        // maxRetryAfterWaits of them, instead of stopping the run after a few backoffs.
        unsaidRetryAfterMs: common.http?.unsaidRetryAfterMs ?? Math.min(UNSAID_RETRY_AFTER_MS, options.maxWaitMs),
        maxRetryTimeMs: common.http?.maxRetryTimeMs ?? Number.POSITIVE_INFINITY,
      }
    : common.http;
  let startup: Awaited<ReturnType<typeof store.holdForStart>>;
  try {
    startup = await store.holdForStart();
  } catch (error) {
    // Held by another process past the lock wait before the run could begin (or stopped
    // while it waited): nothing was planned or fetched. The run ends as one stopped later
    // does, with its summary (cron's log shows why), but with no record in `runs`: it never
    // started.
    const stop = stopBeforeStart(error);
    if (stop === null) throw error;
    return endedBeforeStart(options.command, runId, stop);
  }
  const { release: releaseStartup, isNew } = startup;
  // Begun: from here a stop still saves what the run fetched, if the file is free or soon is (Store.beginSaving).
  store.beginSaving();
  let session: Session;
  // The run's record (and the crashed runs it finds), in the file before the first load.
  let runRecorded: Promise<string[]>;
  try {
    if (!isNew) logCrashedRuns(logger, await recordRunStart(store, runId, options.command, clock.now()));
    session = createSession({
      workspace,
      newDatabase: isNew,
      apiKey: common.apiKey,
      baseUrl: common.baseUrl,
      scope: 'analytics',
      perHour: options.perHour,
      maxRequests: options.maxRequests,
      maxWaitMs: options.maxWaitMs,
      clock,
      breaker: new FailureBreaker(),
      logger,
      ...(hooks.onWait ? { onWait: hooks.onWait } : {}),
      ...(hooks.budgetHints ? { budgetHints: hooks.budgetHints } : {}),
      // Checked (unbudgeted) before the first budget wait, so a wrong key never hides behind it.
      ...(options.tasks[0] ? { keyCheckProject: options.tasks[0].projectId } : {}),
      // A run that waits for the budget waits for the server's Retry-After as long (another
      // client of the organization may have spent the hour); others give up past a minute.
      ...(http ? { http } : {}),
    });
    if (isNew) {
      // A file this run created holds nothing: the plan needs no read of it, and the first
      // requests go out while its schema is made. The hour's requests are the journal's, read
      // before the run's record moves them into the file.
      await session.budget.ready();
      runRecorded = recordRunStart(store, runId, options.command, clock.now());
      runRecorded.then((crashed) => logCrashedRuns(logger, crashed), () => undefined);
    } else {
      runRecorded = Promise.resolve([]);
    }
  } catch (error) {
    await releaseStartup();
    throw error;
  }
  let summary: ExportSummary;
  let threads: ThreadsSummary | undefined;
  // Without a threads phase to follow, the last loads and the run's record follow each other
  // at once: they share one open of the file (taken when the fetching is over).
  let releaseEnd: (() => Promise<void>) | undefined;
  try {
    summary = await runExport({
      store,
      spool: workspace.spool,
      client: session.client,
      budget: session.budget,
      clock,
      runId,
      tasks: options.tasks,
      refresh: options.refresh,
      lookbackDays: options.lookbackDays,
      ...(common.signal ? { signal: common.signal } : {}),
      newDatabase: isNew,
      beforeLoads: runRecorded,
      onPlan: (plan) => {
        void releaseStartup();
        hooks.onPlan?.(plan);
      },
      ...(hooks.onWindow ? { onWindow: hooks.onWindow } : {}),
      ...(options.threads
        ? {}
        : {
            onFetched: async () => {
              // The fetching is over: the last loads may have both cores.
              releaseEnd = await store.hold(true);
            },
          }),
    });
    await runRecorded;
    // Not after the file stayed held: the threads' plan would wait for it once more.
    if (options.threads && summary.stopped === null) {
      threads = await runThreads({
        store,
        spool: workspace.spool,
        client: session.client,
        runId,
        projects: options.threads.projects,
        range: options.threads.range,
        refresh: options.refresh,
        now: () => clock.now(),
        ...(common.signal ? { signal: common.signal } : {}),
        onThreadFailed: ({ projectId, threadId, error }) => logger.error('thread failed', { project: projectId, thread: threadId, error }),
      });
      if (threads.stopped !== null && summary.stopped === null) {
        summary.stopped = threads.stopped;
        summary.stopMessage = threads.stopMessage;
      }
      summary.requests = session.budget.requestsUsed;
      summary.exitCode = runExitCode(summary.stopped, summary.windowsFailed > 0 || threads.threadsFailed > 0);
    }
  } catch (error) {
    // Record the failure (and move the request journal in) if the database lets us.
    await store
      .write((tx) => finishRun(tx, runId, { status: 'failed', exitCode: EXIT.failed, summary: { error: String(error) } }, clock.now()))
      .catch((second: unknown) => logger.warn('run not recorded', { error: String(second) }));
    await releaseEnd?.();
    throw error;
  } finally {
    await releaseStartup();
  }
  const result: AnalyticsResult = { command: options.command, ...summary, ...(threads ? { threads } : {}), retries: session.stats.retries, runId };
  const { command: _command, ...recorded } = result;
  // Also moves the rest of the request journal into request_log.
  try {
    await recordRunEnd(store, workspace.spool.root, runId, runOutcome(summary.stopped, summary.exitCode, recorded), clock.now(), logger);
  } finally {
    await releaseEnd?.();
  }
  return result;
}

/** The summary of a run that ended before it began: the database held from it, or a stop while it waited. */
function endedBeforeStart(command: string, runId: string, stop: StopBeforeStart): AnalyticsResult {
  return { ...emptyExportSummary(), command, runId, retries: 0, ...stop };
}

function projectList(project: string | readonly string[]): string[] {
  if (typeof project !== 'string' && !Array.isArray(project)) {
    throw new UsageError(`invalid project '${String(project)}': expected a project id or a list of them`);
  }
  const given: unknown[] = typeof project === 'string' ? [project] : [...(project as readonly unknown[])];
  const notText = given.find((p) => typeof p !== 'string');
  if (notText !== undefined) throw new UsageError(`invalid project '${String(notText)}': expected a project id (text)`);
  const list = (given as string[]).map((p) => p.trim()).filter((p) => p !== '');
  if (list.length === 0) throw new UsageError('no project: pass project (or set DOCPIPE_PROJECT)');
  return [...new Set(list.map((id) => checkProjectId('project', id)))];
}

/**
 * Exports one metric of one or more projects for a date range (`to` exclusive) into the
 * database, skipping windows already loaded and settled unless `refresh`. Resolves to the
 * run's summary, whose `exitCode` says how it ended (0 done, 1 failed windows, 75 stopped on
 * the budget with work left, 130 interrupted). Bad options reject with a `UsageError`.
 */
export async function exportAnalytics(options: ExportAnalyticsOptions): Promise<AnalyticsResult> {
  return withoutKey(options?.apiKey, () => exportNow(options));
}

async function exportNow(options: ExportAnalyticsOptions): Promise<AnalyticsResult> {
  checkOptionNames(options, EXPORT_OPTION_NAMES, { entry: 'exportAnalytics' });
  const refresh = yesNo('refresh', options.refresh);
  const threads = yesNo('threads', options.threads);
  if (!(METRICS as readonly string[]).includes(options.metric)) {
    throw new UsageError(`invalid metric '${String(options.metric)}': expected ${METRICS.join(' or ')}`);
  }
  const grain = options.window ?? 'day';
  if (!(GRAINS as readonly string[]).includes(grain)) {
    throw new UsageError(`invalid window '${String(grain)}': expected one of ${GRAINS.join(', ')}`);
  }
  const lookbackDays = options.lookbackDays ?? 2;
  if (!Number.isInteger(lookbackDays) || lookbackDays < 0 || lookbackDays > MAX_LOOKBACK_DAYS) {
    throw new UsageError(`invalid lookbackDays '${String(lookbackDays)}': expected a whole number from 0 to ${MAX_LOOKBACK_DAYS}`);
  }
  if (isEventStream(options.metric) && grain !== 'day') {
    throw new UsageError(`invalid window (--window) '${grain}' for ${options.metric}: events are fetched and replaced one day window at a time; use day`);
  }
  if (threads && options.metric !== 'assistant') {
    throw new UsageError(`threads (--threads) are for 'export assistant', not '${options.metric}'`);
  }
  const projects = projectList(options.project);
  const common = resolveCommon(options);
  const now = common.clock.now();
  // Named as this function's options are (the CLI has checked its own --from and --to already).
  const names = { from: 'from', to: 'to' };
  const windows = planWindows(options.from, options.to, grain, { names });
  checkNotFuture(windows, now, options.to, grain, names);
  const open = windows.filter((w) => !isClosed(w, now));
  if (open.length > 0) {
    common.logger.warn('window not closed yet', {
      windows: open.length,
      first: open[0]?.start,
      detail: 'today (UTC) is partial: these windows are re-fetched on later runs until they settle',
    });
  }
  return runAnalytics(common, options, {
    command: `export ${options.metric}`,
    tasks: projects.map((projectId) => ({ metric: options.metric, projectId, grain, windows })),
    refresh,
    lookbackDays,
    perHour: checkPerHour(options.requestsPerHour ?? DEFAULT_REQUESTS_PER_HOUR),
    maxRequests: common.maxRequests,
    maxWaitMs: checkMaxWait(options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS),
    ...(threads ? { threads: { projects, range: { start: options.from, end: options.to } } } : {}),
  });
}

/** The pipeline file `sync` reads when none is named. */
export const DEFAULT_PIPELINE_FILE = 'pipelines/nightly.json';

/**
 * Reads and checks a pipeline file; every problem at once in one UsageError. Its warnings
 * speak of the values the run uses: the file's, or those `overrides` put in their place.
 */
export function readPipeline(
  source: string | Record<string, unknown>,
  onWarning: (warning: string) => void = () => undefined,
  overrides: BudgetOverrides = {},
): PipelineConfig {
  const label = typeof source === 'string' ? source : '(options.pipeline)';
  let json: unknown = source;
  if (typeof source === 'string') {
    let text: string;
    try {
      text = readFileSync(source, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read pipeline file '${source}'`, { cause: error });
    }
    // Editors on Windows may start the file with a byte-order mark.
    const body = text.replace(/^\uFEFF/, '');
    try {
      json = JSON.parse(body);
    } catch (error) {
      throw new UsageError(`pipeline file '${source}' is not valid JSON`, { cause: error });
    }
    const duplicate = firstDuplicateKey(body);
    if (duplicate) throw new UsageError(`pipeline file '${source}': ${describeDuplicateKey(duplicate)}`);
  }
  const check = checkPipelineConfig(json, overrides);
  for (const warning of check.warnings) onWarning(warning);
  if (!check.config) throw new UsageError(`pipeline file '${label}': ${check.errors.join('; ')}`);
  return check.config;
}

/**
 * The nightly incremental run of a pipeline: every closed window from `start` on that is not
 * yet settled, most recent first, within the pipeline's `maxRequestsPerRun` (or
 * `maxRequests`). Resolves to the run's summary (`exitCode` 75: stopped on the budget, the
 * next run carries on).
 */
export async function syncPipeline(options: SyncPipelineOptions): Promise<AnalyticsResult> {
  return withoutKey(options?.apiKey, () => syncNow(options));
}

async function syncNow(options: SyncPipelineOptions): Promise<AnalyticsResult> {
  checkOptionNames(options, SYNC_OPTION_NAMES, { entry: 'syncPipeline' });
  const common = resolveCommon(options);
  const source = options.pipeline ?? DEFAULT_PIPELINE_FILE;
  const label = typeof source === 'string' ? source : '(options.pipeline)';
  // Checked before the file, whose warnings speak of them.
  const maxWaitMs = checkMaxWait(options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS);
  const requestsPerHour = options.requestsPerHour === undefined ? undefined : checkPerHour(options.requestsPerHour);
  const config = readPipeline(source, (warning) => common.logger.warn('pipeline', { file: label, warning }), {
    requestsPerHour,
    maxRequests: common.maxRequests,
    waits: waitsForBudget(maxWaitMs),
  });
  // Explicit projects win over the file.
  if (options.projects !== undefined && !Array.isArray(options.projects)) {
    throw new UsageError(`invalid projects '${String(options.projects as unknown)}': expected a list of project ids`);
  }
  const projects = resolveSyncProjects(config, options.projects?.map((id) => checkProjectId('projects', id)), label);
  const now = common.clock.now();
  const tasks: ExportTask[] = planSyncSeries(config, projects, now);
  const early = futureStartWarning(config, now);
  if (early !== undefined) common.logger.warn('pipeline', { file: label, warning: early });
  return runAnalytics(common, options, {
    command: `sync ${label}`,
    tasks,
    refresh: false,
    lookbackDays: config.lookbackDays,
    perHour: requestsPerHour ?? config.requestsPerHour,
    // The file's cap keeps each cron run short; a run that waits for the budget (--wait) is a
    // backfill in one process, which the cap would stop before its first wait.
    maxRequests: common.maxRequests ?? (waitsForBudget(maxWaitMs) ? undefined : config.maxRequestsPerRun),
    maxWaitMs,
  });
}
