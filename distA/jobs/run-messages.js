/**
 * Sends follow-up messages and follows each job again to its end. Each message is sent once
 * (ledger first, then POST, like job creation); a job's messages go one after another, each
 * after the job ended from the one before, while different jobs proceed side by side. It
 * resumes from the message ledger: sent messages are not sent again, jobs still working are
 * followed again, and a message whose POST outcome is unknown is left alone unless
 * `resendUnknown`.
 */
import pLimit from 'p-limit';
import { sendAgentMessage } from '../api/agent.js';
import { isTerminalStatus } from '../api/schemas.js';
import { HttpError } from '../core/errors.js';
import { runExitCode } from '../core/outcome.js';
import { followJob } from './follow-job.js';
import { isMessageDone } from './message-ledger.js';
import { classifySubmitError, message } from './run-batch.js';
export async function runMessages(options) {
    const { client, messages, jobs, clock, projectId, signal } = options;
    const random = options.random ?? Math.random;
    const pollIntervalMs = options.pollIntervalMs ?? 5_000;
    const timeoutMs = options.timeoutMs ?? 3_600_000;
    const limit = pLimit(Math.max(1, options.concurrency ?? 3));
    const state = { stop: null };
    let sent = 0;
    const recordJob = async (entry, job, opts) => {
        await messages.recordJob(projectId, entry.key, job, clock.now(), opts);
        if (entry.promptKey !== null)
            await jobs.recordJob(projectId, entry.promptKey, job, clock.now(), { polled: !opts.sent });
    };
    /** Follows the job after a message; false if the next message of the job must not be sent. */
    const follow = async (entry) => {
        const end = await followJob({
            client,
            clock,
            projectId,
            jobId: entry.jobId,
            pollIntervalMs,
            timeoutMs,
            random,
            signal,
            stopped: () => state.stop?.reason === 'fatal',
            onJob: async (job) => {
                await recordJob(entry, job, {});
                options.onEvent?.({ kind: 'status', key: entry.key, jobId: entry.jobId, status: job.status ?? 'active' });
            },
            onTimeout: async () => {
                const error = `still active after ${Math.round(timeoutMs / 1000)} s`;
                await messages.recordOutcome(projectId, entry.key, { jobStatus: 'timed_out', error }, clock.now());
                if (entry.promptKey !== null)
                    await jobs.recordOutcome(projectId, entry.promptKey, { status: 'timed_out', error }, clock.now());
            },
            onError: (error) => messages.recordOutcome(projectId, entry.key, { error: message(error) }, clock.now()),
        });
        if (end.kind === 'stopped')
            state.stop ??= end.stop;
        return end.kind === 'ended';
    };
    /**
     * Sends one message: `follow` its job, `next` (the job already ended, or the API refused
     * the message: go on with the job's next one), or `halt` (unknown outcome, or the run stops).
     */
    const send = async (entry) => {
        await messages.markPending(projectId, entry, options.sourceFile, clock.now());
        let job;
        try {
            job = await sendAgentMessage(client, projectId, entry.jobId, entry.prompt, signal);
        }
        catch (error) {
            // A 404 here is about this message's job (no such job), not about every message.
            const kind = error instanceof HttpError && error.status === 404 ? 'rejected' : classifySubmitError(error, projectId);
            if (kind === 'unknown') {
                sent++;
                await messages.recordOutcome(projectId, entry.key, { status: 'unknown', error: message(error) }, clock.now());
                return 'halt';
            }
            if (kind === 'rejected') {
                await messages.recordOutcome(projectId, entry.key, { status: 'rejected', error: message(error), nothingCreated: true }, clock.now());
                return 'next';
            }
            // Nothing was sent: the row stays `pending` and a later run sends it.
            await messages.recordOutcome(projectId, entry.key, { error: message(error), nothingCreated: true }, clock.now());
            state.stop ??= { reason: kind.stop, cause: error };
            return 'halt';
        }
        sent++;
        await recordJob(entry, job, { sent: true });
        options.onEvent?.({ kind: 'sent', key: entry.key, jobId: entry.jobId, status: job.status ?? 'active' });
        return isTerminalStatus(job.status) ? 'next' : 'follow';
    };
    /** One message; false when the job's later messages must wait for another run. */
    const handle = async (entry) => {
        const existing = await messages.get(projectId, entry.key);
        if (existing?.status === 'pending' && existing.postStarted) {
            // An earlier run was cut off between recording the message and learning the POST's fate.
            existing.status = 'unknown';
            await messages.recordOutcome(projectId, entry.key, { status: 'unknown', error: 'cut off while sending; outcome unknown' }, clock.now());
        }
        if (existing && isMessageDone(existing)) {
            options.onEvent?.({ kind: 'skipped', key: entry.key, jobId: entry.jobId, reason: existing.status === 'sent' ? 'sent in an earlier run' : existing.status });
            return true;
        }
        if (existing?.status === 'unknown' && !options.resendUnknown) {
            options.onEvent?.({ kind: 'skipped', key: entry.key, jobId: entry.jobId, reason: 'outcome unknown; --resubmit-unknown to send again' });
            return false;
        }
        if (existing?.status !== 'sent') {
            if (state.stop || signal?.aborted)
                return false; // stop sending; jobs being followed go on
            const next = await send(entry);
            if (next !== 'follow')
                return next === 'next';
        }
        return follow(entry);
    };
    // A job's messages in order, one after the other; jobs side by side.
    const byJob = new Map();
    for (const entry of options.entries)
        byJob.set(entry.jobId, [...(byJob.get(entry.jobId) ?? []), entry]);
    await Promise.all([...byJob.values()].map((list) => limit(async () => {
        for (const entry of list)
            if (!(await handle(entry)))
                return;
    })));
    const rows = [];
    for (const entry of options.entries) {
        const row = await messages.get(projectId, entry.key);
        if (row)
            rows.push(row);
    }
    const counts = {};
    for (const row of rows) {
        const label = row.status === 'sent' ? `sent: ${row.jobStatus ?? 'active'}` : row.status;
        counts[label] = (counts[label] ?? 0) + 1;
    }
    const notSent = options.entries.length - rows.length;
    if (notSent > 0)
        counts['not sent'] = notSent;
    const stop = state.stop;
    const interrupted = signal?.aborted === true || stop?.reason === 'interrupted';
    const allDone = rows.length === options.entries.length && rows.every(isMessageDone);
    const stopped = interrupted ? 'interrupted' : (stop?.reason ?? null);
    return {
        total: options.entries.length,
        sent,
        rows,
        counts,
        stopped,
        stopMessage: stop?.cause === undefined ? null : message(stop.cause),
        exitCode: runExitCode(stopped, !allDone),
    };
}
//# sourceMappingURL=run-messages.js.map