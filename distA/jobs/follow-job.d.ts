import type { HttpClient } from '../api/http-client.js';
import { type AgentJob } from '../api/schemas.js';
import type { Clock } from '../core/clock.js';
import { type StopReason } from '../core/outcome.js';
export interface FollowOptions {
    client: HttpClient;
    clock: Clock;
    projectId: string;
    jobId: string;
    /** First poll interval; backs off to 60 s. */
    pollIntervalMs: number;
    /** From the start of following, in this run. */
    timeoutMs: number;
    random: () => number;
    signal?: AbortSignal | undefined;
    /** Checked before each poll: another job met a reason to stop the whole run. */
    stopped: () => boolean;
    /** Each answer of the API. */
    onJob: (job: AgentJob) => Promise<void>;
    /** The deadline passed with the job still active. */
    onTimeout: () => Promise<void>;
    /** A failed poll that does not stop the run (it is retried at the next interval, unless a 404). */
    onError: (error: unknown) => Promise<void>;
}
/**
 * How following ended: `ended` (terminal status), `timed_out`, `lost` (404), `interrupted`
 * or `stopped` (the run stops: `stop` says why).
 */
export type FollowEnd = {
    kind: 'ended' | 'timed_out' | 'lost' | 'interrupted';
} | {
    kind: 'stopped';
    stop: {
        reason: StopReason;
        cause: unknown;
    };
};
export declare function followJob(options: FollowOptions): Promise<FollowEnd>;
