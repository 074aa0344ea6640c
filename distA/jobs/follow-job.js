/**
 * Following one agent job to its end: poll with backoff until it shows a terminal status,
 * the deadline passes, the run stops, or the server no longer knows it. What each answer
 * means for the books is the caller's (the job ledger, the message ledger).
 */
import { getAgentJob } from '../api/agent.js';
import { isTerminalStatus } from '../api/schemas.js';
import { HttpError, InterruptedError } from '../core/errors.js';
import { stopReasonOf } from '../core/outcome.js';
import { pollDelay } from './poll-schedule.js';
export async function followJob(options) {
    const { client, clock, projectId, jobId, signal } = options;
    const deadline = clock.now() + options.timeoutMs;
    for (let attempt = 0;; attempt++) {
        if (signal?.aborted)
            return { kind: 'interrupted' };
        if (options.stopped())
            return { kind: 'interrupted' };
        const wait = Math.min(pollDelay(attempt, options.pollIntervalMs, options.random()), Math.max(0, deadline - clock.now()));
        try {
            await clock.sleep(wait, signal);
        }
        catch {
            return { kind: 'interrupted' }; // the job stays unfinished in the books and is followed next run
        }
        if (clock.now() >= deadline) {
            await options.onTimeout();
            return { kind: 'timed_out' };
        }
        try {
            const job = await getAgentJob(client, projectId, jobId, signal);
            await options.onJob(job);
            if (isTerminalStatus(job.status))
                return { kind: 'ended' };
        }
        catch (error) {
            if (error instanceof InterruptedError)
                return { kind: 'interrupted' };
            const reason = stopReasonOf(error);
            if (reason === 'fatal' || reason === 'locked')
                return { kind: 'stopped', stop: { reason, cause: error } };
            await options.onError(error);
            // The server does not know the job: polling again will not help this run.
            if (error instanceof HttpError && error.status === 404)
                return { kind: 'lost' };
        }
    }
}
//# sourceMappingURL=follow-job.js.map