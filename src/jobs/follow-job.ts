/**
 * Following one agent job to its end: poll with backoff until it shows a terminal status,
 * the deadline passes, the run stops, or the server no longer knows it. What each answer
 * means for the books is the caller's (the job ledger, the message ledger).
 */
import { getAgentJob } from '../api/agent.js';
import type { HttpClient } from '../api/http-client.js';
import { isTerminalStatus, type AgentJob } from '../api/schemas.js';
import type { Clock } from '../core/clock.js';
import { HttpError, InterruptedError, RateLimitError } from '../core/errors.js';
import { stopReasonOf, type StopReason } from '../core/outcome.js';
import { pollDelay } from './poll-schedule.js';

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
  /**
   * Checked before each poll: the run stops following its jobs (another job's poll stopped
   * it, or a fatal error did).
   */
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
export type FollowEnd =
  | { kind: 'ended' | 'timed_out' | 'lost' | 'interrupted' }
  | { kind: 'stopped'; stop: { reason: StopReason; cause: unknown } };

/** Why a run that submits and follows jobs stops: the first reason it met. */
export interface Stop {
  reason: StopReason;
  cause: unknown;
  message?: string;
}

/**
 * The stop of a run that submits and follows jobs (a batch, a run of messages): the first
 * reason met wins. A fatal one, or one a poll met (a server asking for quiet, a failing API,
 * a held file), ends every poll as well.
 */
export class RunStop {
  stop: Stop | null = null;
  private pollStopped = false;
  /** For FollowOptions.stopped. */
  readonly pollsEnd = (): boolean => this.stop?.reason === 'fatal' || this.pollStopped;

  /** Takes how following one job ended. */
  afterPoll(end: FollowEnd): void {
    if (end.kind !== 'stopped') return;
    this.stop ??= end.stop;
    this.pollStopped = true;
  }
}

export async function followJob(options: FollowOptions): Promise<FollowEnd> {
  const { client, clock, projectId, jobId, signal } = options;
  const deadline = clock.now() + options.timeoutMs;
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) return { kind: 'interrupted' };
    if (options.stopped()) return { kind: 'interrupted' };
    const wait = Math.min(pollDelay(attempt, options.pollIntervalMs, options.random()), Math.max(0, deadline - clock.now()));
    try {
      await clock.sleep(wait, signal);
    } catch {
      return { kind: 'interrupted' }; // the job stays unfinished in the books and is followed next run
    }
    // At the deadline the job is polled once more: it may have ended since the last poll (or
    // never been polled, when the first interval is longer than the timeout).
    const last = clock.now() >= deadline;
    try {
      const job = await getAgentJob(client, projectId, jobId, signal);
      await options.onJob(job);
      if (isTerminalStatus(job.status)) return { kind: 'ended' };
    } catch (error) {
      if (error instanceof InterruptedError) return { kind: 'interrupted' };
      const reason = stopReasonOf(error);
      if (reason === 'fatal' || reason === 'locked' || reason === 'failing') return { kind: 'stopped', stop: { reason, cause: error } };
      // A 429 or 503 whose Retry-After the client did not wait out (past a minute, or one wait
      // too many): the server asks for quiet, so the run stops and the job is polled again by
      // the next run. One without Retry-After is a failed poll like another.
      if (error instanceof RateLimitError && error.retryAfterMs !== undefined) return { kind: 'stopped', stop: { reason: 'budget', cause: error } };
      await options.onError(error);
      // The server does not know the job: polling again will not help this run.
      if (error instanceof HttpError && error.status === 404) return { kind: 'lost' };
    }
    if (last) {
      await options.onTimeout();
      return { kind: 'timed_out' };
    }
  }
}
