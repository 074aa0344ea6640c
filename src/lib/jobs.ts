/**
 * The agent-job half of the library: `submitJobs` submits prompts once each and follows each
 * job to its end, through the ledger (`agent_jobs`), so a second call with the same prompts
 * resumes instead of submitting again. It never prints and never exits.
 */
import { DEFAULT_FAILURE_LIMIT, FailureBreaker } from '../api/failure-breaker.js';
import { EXIT, UsageError } from '../core/errors.js';
import { JobLedger } from '../jobs/ledger.js';
import { collect, promptId, readPromptFile, type PromptEntry } from '../jobs/prompt-files.js';
import { runBatch, type BatchEvent, type BatchSummary } from '../jobs/run-batch.js';
import { logCrashedRuns, newRunId, recordRunEnd, recordRunStart, runOutcome } from '../load/runs.js';
import { createSession, createWorkspace } from './session.js';
import { checkOptionNames, checkProjectId, COMMON_OPTION_NAMES, optionNames, positive, refuseKeyInPrompts, requireKeptDb, resolveCommon, stopBeforeStart, withoutKey, yesNo, type CommonOptions, type ResolvedCommon, type StopBeforeStart } from './common.js';

/** Agent job creation and follow-up messages: 100 an hour per project (DESIGN §1). */
export const DEFAULT_JOBS_PER_HOUR = 100;

/** A prompt given in code: its text and, optionally, the id that keys it in the ledger. */
export interface PromptInput {
  prompt: string;
  /** @default `sha256:` and 16 hex digits of the prompt's text */
  id?: string;
}

export interface JobFollowOptions {
  /** First poll interval in ms; it backs off from there to 60 s. @default 5_000 */
  pollIntervalMs?: number;
  /** How long to follow a job before it is recorded `timed_out`, in ms. @default 3_600_000 */
  timeoutMs?: number;
  /**
   * Job creations and messages per hour for the project (the API's limit); a batch waits for
   * the budget rather than stopping. @default 100
   */
  jobsPerHour?: number;
}

export interface SubmitJobsOptions extends CommonOptions, JobFollowOptions {
  project: string;
  /** A prompt file (`.txt`, `.jsonl` or `.csv`), or the prompts themselves. */
  prompts: string | readonly PromptInput[];
  /** Recorded as each prompt's `source_file`. @default the file's path, or `'library'` */
  source?: string;
  /** Jobs in flight at once. @default 3 */
  concurrency?: number;
  /** Submit again prompts whose earlier submission has an unknown outcome. @default false */
  resubmitUnknown?: boolean;
  /** Told as each prompt is skipped, submitted, polled and finished. */
  onEvent?: (event: BatchEvent) => void;
}

/** JobFollowOptions' names, for the option checks of submitJobs and sendMessages. */
export const FOLLOW_OPTION_NAMES = ['pollIntervalMs', 'timeoutMs', 'jobsPerHour'] as const;
const SUBMIT_OPTION_NAMES = optionNames<SubmitJobsOptions>()([
  ...COMMON_OPTION_NAMES, ...FOLLOW_OPTION_NAMES, 'project', 'prompts', 'source', 'concurrency', 'resubmitUnknown', 'onEvent',
]);

export interface SubmitJobsResult extends BatchSummary {
  runId: string;
  /** Duplicate prompts that were dropped, one line each. */
  warnings: string[];
}

/**
 * The prompts of a list given in code, keyed and deduplicated like a prompt file (`warnings`:
 * the exact duplicates dropped; a key reused for another prompt is a UsageError).
 */
export function promptEntries(prompts: readonly (PromptInput & { row?: number })[], label = 'prompts'): { entries: PromptEntry[]; warnings: string[] } {
  if (!Array.isArray(prompts)) throw new UsageError(`invalid ${label}: expected a list of {prompt, id?}`);
  const raw = prompts.map((p, index) => {
    if (typeof p?.prompt !== 'string' || p.prompt.trim() === '') throw new UsageError(`${label}[${index}]: prompt must be a non-empty string`);
    // A query's prompt is known by its row of the result (another project's rows left out).
    return { prompt: p.prompt.replace(/\r\n/g, '\n').trim(), line: p.row ?? index + 1, id: promptId(`${label}[${index}]`, p.id) };
  });
  if (raw.length === 0) throw new UsageError(`${label}: no prompts`);
  const { entries, warnings } = collect(label, 'jsonl', raw);
  return { entries, warnings };
}

/** The job options, checked and with their defaults. */
export function resolveFollow(options: JobFollowOptions & { concurrency?: number }) {
  return {
    concurrency: positive('concurrency', options.concurrency ?? 3, true),
    pollIntervalMs: positive('pollIntervalMs', options.pollIntervalMs ?? 5_000, false),
    timeoutMs: positive('timeoutMs', options.timeoutMs ?? 3_600_000, false),
    jobsPerHour: positive('jobsPerHour', options.jobsPerHour ?? DEFAULT_JOBS_PER_HOUR, true),
  };
}

/**
 * The API session of a project's agent jobs: job creation and messages share the project's
 * hourly budget (scope `agent:<project>`); polling is not budgeted (the API documents no
 * limit) but is logged.
 */
export function agentSession(common: ResolvedCommon, workspace: ReturnType<typeof createWorkspace>, projectId: string, jobsPerHour: number) {
  return createSession({
    workspace,
    apiKey: common.apiKey,
    baseUrl: common.baseUrl,
    scope: `agent:${projectId}`,
    perHour: jobsPerHour,
    maxRequests: common.maxRequests,
    // A batch may wait for its hourly job budget (an abort stops it and a re-run resumes).
    maxWaitMs: Number.POSITIVE_INFINITY,
    budgeted: (method) => method === 'POST',
    budgetHints: { cap: 'raise the request cap (--max-requests) to allow more submissions in one run' },
    // Checked (unbudgeted) before the first wait for the job budget.
    keyCheckProject: projectId,
    // An API that fails poll after poll would otherwise be polled until --timeout, and its
    // jobs recorded timed_out though they may have ended: the batch stops (exit 75) and the
    // next run polls them again.
    breaker: new FailureBreaker(DEFAULT_FAILURE_LIMIT, 'stopped; unfinished jobs are polled again and pending prompts submitted by the next run'),
    clock: common.clock,
    logger: common.logger,
    ...(common.http ? { http: common.http } : {}),
  });
}

export interface JobBatchInput {
  projectId: string;
  entries: readonly PromptEntry[];
  source: string;
  /** Recorded in `runs.command`. */
  command: string;
  concurrency: number;
  pollIntervalMs: number;
  timeoutMs: number;
  jobsPerHour: number;
  resubmitUnknown: boolean;
  onEvent?: (event: BatchEvent) => void;
}

/** The summary of a batch of no prompt (a query without rows): nothing submitted, nothing stopped it. */
export function emptyBatch(runId: string): SubmitJobsResult {
  return { total: 0, submitted: 0, taken: 0, rows: [], rowsRead: true, counts: {}, stopped: null, stopMessage: null, exitCode: EXIT.ok, runId, warnings: [] };
}

/**
 * The summary of a batch that ended before it began, nothing submitted: the database held
 * from it, or a stop while it waited for the file.
 */
export function batchEndedBeforeStart(total: number, runId: string, stop: StopBeforeStart): SubmitJobsResult {
  return { ...emptyBatch(runId), total, rowsRead: false, counts: total > 0 ? { 'not submitted': total } : {}, ...stop };
}

/** Submits and follows a batch of entries, recording the run: what `submitJobs` and `jobs from-query` share. */
export async function runJobBatch(common: ResolvedCommon, input: JobBatchInput): Promise<SubmitJobsResult> {
  const { clock } = common;
  requireKeptDb(common.workspace.db);
  refuseKeyInPrompts(input.entries, common.apiKey, input.source);
  const runId = newRunId(clock.now());
  const workspace = createWorkspace(common.workspace, runId, common.logger, common.signal ? { signal: common.signal } : {});
  const { store } = workspace;
  try {
    logCrashedRuns(common.logger, await recordRunStart(store, runId, input.command, clock.now()));
  } catch (error) {
    // Held by another process past the lock wait before the batch could begin (or stopped
    // while it waited): no prompt was submitted. It ends as a batch stopped later does, with
    // its summary, but with no record in `runs`: it never started.
    const stop = stopBeforeStart(error);
    if (stop === null) throw error;
    return batchEndedBeforeStart(input.entries.length, runId, stop);
  }
  const session = agentSession(common, workspace, input.projectId, input.jobsPerHour);
  const summary = await runBatch({
    client: session.client,
    ledger: new JobLedger(store, runId, workspace.spool.root),
    clock,
    projectId: input.projectId,
    sourceFile: input.source,
    entries: input.entries,
    concurrency: input.concurrency,
    pollIntervalMs: input.pollIntervalMs,
    timeoutMs: input.timeoutMs,
    resubmitUnknown: input.resubmitUnknown,
    ...(common.signal ? { signal: common.signal } : {}),
    ...(input.onEvent ? { onEvent: input.onEvent } : {}),
  });
  // Also moves the rest of the request journal into request_log.
  const recorded = { total: summary.total, submitted: summary.submitted, counts: summary.counts };
  await recordRunEnd(store, workspace.spool.root, runId, runOutcome(summary.stopped, summary.exitCode, recorded), clock.now(), common.logger);
  return { ...summary, runId, warnings: [] };
}


/**
 * Submits each prompt once and follows each job to its end. Prompts already submitted (in
 * this database's ledger) are not submitted again; unfinished jobs are polled again. Resolves
 * to the batch's outcome, one ledger row per prompt, and `exitCode` (0 every job ended, 1 a
 * job is `unknown`, `timed_out` or lost, 75 the request cap stopped submissions, 130
 * interrupted).
 */
export async function submitJobs(options: SubmitJobsOptions): Promise<SubmitJobsResult> {
  return withoutKey(options?.apiKey, () => submitNow(options));
}

async function submitNow(options: SubmitJobsOptions): Promise<SubmitJobsResult> {
  checkOptionNames(options, SUBMIT_OPTION_NAMES, { entry: 'submitJobs' });
  const resubmitUnknown = yesNo('resubmitUnknown', options.resubmitUnknown);
  const projectId = checkProjectId('project', options.project);
  const follow = resolveFollow(options);
  const { entries, warnings } = typeof options.prompts === 'string' ? await readPromptFile(options.prompts) : promptEntries(options.prompts);
  const common = resolveCommon(options);
  for (const warning of warnings) common.logger.warn('prompt file', { warning });
  const source = options.source ?? (typeof options.prompts === 'string' ? options.prompts : 'library');
  const result = await runJobBatch(common, {
    projectId,
    entries,
    source,
    command: `jobs submit ${source}`,
    ...follow,
    resubmitUnknown,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
  return { ...result, warnings };
}
