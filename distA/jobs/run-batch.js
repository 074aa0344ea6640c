/**
 * The batch runner: for each prompt, submit it once (ledger first, then POST) and poll the
 * job to its end, with at most `concurrency` jobs in flight. It resumes from the ledger:
 * submitted prompts are never submitted again, unfinished jobs are polled again, and a POST
 * whose outcome is unknown is left alone unless `resubmitUnknown`.
 */
import pLimit from 'p-limit';
import { createAgentJob } from '../api/agent.js';
import { isKnownApiStatus, isTerminalStatus } from '../api/schemas.js';
import { DocpipeError, HttpError, KeyRejectedError, NetworkError } from '../core/errors.js';
import { runExitCode, stopReasonOf } from '../core/outcome.js';
import { decidePrompt } from './decide-prompt.js';
import { isFinalStatus } from './ledger.js';
import { followJob } from './follow-job.js';
/** The start of a prompt on one line, for progress lines. */
export function promptStart(text, width = 48) {
    const line = text.replace(/\s+/g, ' ').trim();
    return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}
export function message(error) {
    return error instanceof Error ? error.message : String(error);
}
/**
 * Why the API refused to create any job (a 4xx other than 400 and 429): the same refusal
 * would meet every prompt, so the batch stops, and nothing was created.
 */
function refusalMessage(error, projectId) {
    // A refused key says so in one place (KeyRejectedError), for exports and jobs alike.
    if (error instanceof KeyRejectedError)
        return error.message;
    const http = `HTTP ${error.status}${error.serverMessage ? `: ${error.serverMessage}` : ''}`;
    switch (error.status) {
        case 403:
            return `the API refused to create jobs (${http}): the key needs the write scope, and this machine's IP must be allowed`;
        case 404:
            return `the API does not know project '${projectId}' (${http}): check --project`;
        default:
            return `the API refused to create jobs (${http})`;
    }
}
/**
 * What a failed POST means (DESIGN §2 rule 7): a reason to stop submitting (nothing was
 * created), a prompt the API refused (only a 400 is about the prompt itself), or an unknown
 * outcome that must not be resubmitted.
 */
export function classifySubmitError(error, projectId) {
    // 503 with its retries used up, or a connection never made: provably nothing was created.
    if (error instanceof HttpError && error.status === 503)
        return { stop: 'budget' };
    if (error instanceof NetworkError && error.phase === 'before-send')
        return { stop: 'budget' };
    if (error instanceof HttpError && error.status === 400)
        return 'rejected';
    if (error instanceof HttpError && error.status > 400 && error.status < 500 && error.status !== 429) {
        return { stop: 'fatal', message: refusalMessage(error, projectId) };
    }
    const reason = error instanceof DocpipeError ? stopReasonOf(error) : null;
    if (reason !== null)
        return { stop: reason };
    // Other 5xx, a reset after sending, a 201 whose body we cannot read, or anything unexpected:
    // the job may exist.
    return 'unknown';
}
export async function runBatch(options) {
    const { client, ledger, clock, projectId, signal } = options;
    const random = options.random ?? Math.random;
    const pollIntervalMs = options.pollIntervalMs ?? 5_000;
    const timeoutMs = options.timeoutMs ?? 3_600_000;
    const limit = pLimit(Math.max(1, options.concurrency ?? 3));
    // Set by whichever job first meets a reason to stop submitting.
    const state = { stop: null };
    let submitted = 0;
    const event = (entry, fields) => options.onEvent?.({ key: entry.key, prompt: promptStart(entry.prompt), ...fields });
    const poll = async (entry, jobId, known) => {
        let last = known;
        const end = await followJob({
            client,
            clock,
            projectId,
            jobId,
            pollIntervalMs,
            timeoutMs,
            random,
            signal,
            stopped: () => state.stop?.reason === 'fatal',
            onJob: async (job) => {
                await ledger.recordJob(projectId, entry.key, job, clock.now(), { polled: true });
                const status = job.status ?? 'active';
                if (job.badPrLink !== null)
                    event(entry, { kind: 'warning', message: `prLink is not a URL, flagged and not stored: ${JSON.stringify(job.badPrLink.slice(0, 200))}` });
                if (status !== last && !isKnownApiStatus(status)) {
                    event(entry, { kind: 'warning', message: `status '${status}' is not one the API documents: stored as it is, and followed like active until --timeout` });
                }
                last = status;
                event(entry, { kind: 'status', jobId, status, ...(job.reason !== null ? { reason: job.reason } : {}) });
            },
            // The ledger keeps a status the API gave that docpipe does not know; the timeout goes beside it.
            onTimeout: () => ledger.recordOutcome(projectId, entry.key, { status: 'timed_out', error: `still ${last ?? 'active'} after ${Math.round(timeoutMs / 1000)} s` }, clock.now()),
            onError: async (error) => {
                await ledger.recordOutcome(projectId, entry.key, { error: message(error) }, clock.now());
                event(entry, { kind: 'warning', message: `poll failed: ${message(error)}` });
            },
        });
        if (end.kind === 'stopped')
            state.stop ??= end.stop;
    };
    const submit = async (entry) => {
        await ledger.markPending(projectId, entry.key, entry.prompt, options.sourceFile, clock.now());
        let job;
        try {
            // Marked as being posted only once the budget let the attempt go, and no longer once an
            // answer proves nothing was created (429, 503): a prompt killed while it waited for the
            // hourly budget, or for a Retry-After, stays provably unsubmitted.
            job = await createAgentJob(client, projectId, entry.prompt, signal, {
                beforeSend: () => ledger.markPosting(projectId, entry.key, clock.now()),
                afterSend: (status) => (status === 429 || status === 503 ? ledger.clearPosting(projectId, entry.key, clock.now()) : Promise.resolve()),
            });
        }
        catch (error) {
            const kind = classifySubmitError(error, projectId);
            if (kind === 'unknown') {
                submitted++;
                await ledger.recordOutcome(projectId, entry.key, { status: 'unknown', error: message(error), submitted: true }, clock.now());
                return null;
            }
            if (kind === 'rejected') {
                await ledger.recordOutcome(projectId, entry.key, { status: 'rejected', error: message(error), nothingCreated: true }, clock.now());
                return null;
            }
            // Nothing was created: the row stays `pending` and a later run submits it.
            await ledger.recordOutcome(projectId, entry.key, { error: kind.message ?? message(error), nothingCreated: true }, clock.now());
            state.stop ??= { reason: kind.stop, cause: error, ...(kind.message ? { message: kind.message } : {}) };
            return null;
        }
        submitted++;
        await ledger.recordJob(projectId, entry.key, job, clock.now(), { submitted: true });
        event(entry, { kind: 'submitted', jobId: job.id });
        if (job.id === null) {
            await ledger.recordOutcome(projectId, entry.key, { status: 'unknown', error: 'the API returned a job without an id' }, clock.now());
        }
        // A job that is already over needs no polling.
        return isTerminalStatus(job.status) || job.id === null ? null : { jobId: job.id, status: job.status };
    };
    // One read of the ledger for the whole batch; each prompt's decision is the dry run's too.
    const before = await ledger.byKey(projectId);
    const handle = async (entry) => {
        const existing = before.get(entry.key);
        const decision = decidePrompt(entry, existing, { resubmitUnknown: options.resubmitUnknown ?? false });
        if (decision.warning)
            event(entry, { kind: 'warning', message: decision.warning });
        if (decision.markUnknown) {
            // An earlier run was cut off between marking the POST and learning its fate.
            await ledger.recordOutcome(projectId, entry.key, { status: 'unknown', error: 'cut off while submitting; outcome unknown' }, clock.now());
        }
        if (decision.action === 'skip') {
            event(entry, { kind: 'skipped', status: decision.status ?? 'unknown', reason: decision.reason });
            return;
        }
        if (decision.action === 'poll') {
            await poll(entry, existing.jobId, decision.status);
            return;
        }
        if (state.stop || signal?.aborted)
            return; // stop submitting; jobs in flight go on
        const job = await submit(entry);
        if (job !== null)
            await poll(entry, job.jobId, job.status);
    };
    await Promise.all(options.entries.map((entry) => limit(() => handle(entry))));
    const after = await ledger.byKey(projectId);
    const rows = [];
    for (const entry of options.entries) {
        const row = after.get(entry.key);
        if (row)
            rows.push(row);
    }
    const counts = {};
    for (const row of rows)
        counts[row.status] = (counts[row.status] ?? 0) + 1;
    const notStarted = options.entries.length - rows.length;
    if (notStarted > 0)
        counts['not submitted'] = notStarted;
    const stop = state.stop;
    const interrupted = signal?.aborted === true || stop?.reason === 'interrupted';
    const allFinal = rows.length === options.entries.length && rows.every((r) => isFinalStatus(r.status));
    const stopped = interrupted ? 'interrupted' : (stop?.reason ?? null);
    const exitCode = runExitCode(stopped, !allFinal);
    const stopCause = stop?.cause;
    return {
        total: options.entries.length,
        submitted,
        rows,
        counts,
        stopped,
        stopMessage: stop?.message ?? (stopCause === undefined ? null : message(stopCause)),
        exitCode,
    };
}
//# sourceMappingURL=run-batch.js.map