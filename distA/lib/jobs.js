/**
 * The agent-job half of the library: `submitJobs` submits prompts once each and follows each
 * job to its end, through the ledger (`agent_jobs`), so a second call with the same prompts
 * resumes instead of submitting again. It never prints and never exits.
 */
import { UsageError } from '../core/errors.js';
import { runStatus } from '../core/outcome.js';
import { JobLedger } from '../jobs/ledger.js';
import { collect, readPromptFile } from '../jobs/prompt-files.js';
import { runBatch } from '../jobs/run-batch.js';
import { finishRun, logCrashedRuns, newRunId, startRun } from '../load/runs.js';
import { createSession, createWorkspace } from './session.js';
import { positive, resolveCommon } from './common.js';
/** Agent job creation and follow-up messages: 100 an hour per project (DESIGN §1). */
export const DEFAULT_JOBS_PER_HOUR = 100;
/**
 * The prompts of a list given in code, keyed and deduplicated like a prompt file (`warnings`:
 * the exact duplicates dropped; a key reused for another prompt is a UsageError).
 */
export function promptEntries(prompts, label = 'prompts') {
    const raw = prompts.map((p, index) => {
        if (typeof p?.prompt !== 'string' || p.prompt.trim() === '')
            throw new UsageError(`${label}[${index}]: prompt must be a non-empty string`);
        return { prompt: p.prompt.replace(/\r\n/g, '\n').trim(), line: index + 1, id: p.id === undefined ? undefined : String(p.id) };
    });
    if (raw.length === 0)
        throw new UsageError(`${label}: no prompts`);
    const { entries, warnings } = collect(label, 'jsonl', raw);
    return { entries, warnings };
}
/** The job options, checked and with their defaults. */
export function resolveFollow(options) {
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
export function agentSession(common, workspace, projectId, jobsPerHour) {
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
        clock: common.clock,
        logger: common.logger,
        ...(common.http ? { http: common.http } : {}),
    });
}
/** Submits and follows a batch of entries, recording the run: what `submitJobs` and `jobs from-query` share. */
export async function runJobBatch(common, input) {
    const { clock } = common;
    const runId = newRunId(clock.now());
    const workspace = createWorkspace(common.workspace, runId, common.logger);
    const { store } = workspace;
    logCrashedRuns(common.logger, await store.write((tx) => startRun(tx, runId, input.command, clock.now())));
    const session = agentSession(common, workspace, input.projectId, input.jobsPerHour);
    const summary = await runBatch({
        client: session.client,
        ledger: new JobLedger(store, runId),
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
    await store.write((tx) => finishRun(tx, runId, { status: runStatus(summary.stopped, summary.exitCode), exitCode: summary.exitCode, summary: { total: summary.total, submitted: summary.submitted, counts: summary.counts } }, clock.now()));
    return { ...summary, runId, warnings: [] };
}
/** One project id: jobs belong to one project. */
export function checkProject(project) {
    const id = typeof project === 'string' ? project.trim() : '';
    if (id === '')
        throw new UsageError('no project: pass --project ID (or set DOCPIPE_PROJECT)');
    return id;
}
/**
 * Submits each prompt once and follows each job to its end. Prompts already submitted (in
 * this database's ledger) are not submitted again; unfinished jobs are polled again. Resolves
 * to the batch's outcome, one ledger row per prompt, and `exitCode` (0 every job ended, 1 a
 * job is `unknown`, `timed_out` or lost, 75 the request cap stopped submissions, 130
 * interrupted).
 */
export async function submitJobs(options) {
    const projectId = checkProject(options.project);
    const follow = resolveFollow(options);
    const { entries, warnings } = typeof options.prompts === 'string' ? await readPromptFile(options.prompts) : promptEntries(options.prompts);
    const common = resolveCommon(options);
    for (const warning of warnings)
        common.logger.warn('prompt file', { warning });
    const source = options.source ?? (typeof options.prompts === 'string' ? options.prompts : 'library');
    const result = await runJobBatch(common, {
        projectId,
        entries,
        source,
        command: `jobs submit ${source}`,
        ...follow,
        resubmitUnknown: options.resubmitUnknown ?? false,
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    });
    return { ...result, warnings };
}
//# sourceMappingURL=jobs.js.map