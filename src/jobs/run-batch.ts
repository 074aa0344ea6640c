/**
 * The batch runner: for each prompt, submit it once (ledger first, then POST) and poll the
 * job to its end, with at most `concurrency` jobs in flight. It resumes from the ledger:
 * submitted prompts are never submitted again, unfinished jobs are polled again, and a POST
 * whose outcome is unknown is left alone unless `resubmitUnknown`.
 */
import pLimit from 'p-limit';
import { createAgentJob } from '../api/agent.js';
import type { HttpClient } from '../api/http-client.js';
import { isTerminalStatus, type AgentJob } from '../api/schemas.js';
import type { Clock } from '../core/clock.js';
import { DocpipeError, HttpError, NetworkError, type ExitCode } from '../core/errors.js';
import { runExitCode, stopReasonOf, type StopReason } from '../core/outcome.js';
import { isFinalStatus, type JobLedger, type LedgerRow } from './ledger.js';
import { followJob } from './follow-job.js';
import type { PromptEntry } from './prompt-files.js';

export interface BatchOptions {
  client: HttpClient;
  ledger: JobLedger;
  clock: Clock;
  projectId: string;
  sourceFile: string;
  entries: readonly PromptEntry[];
  /** @default 3 */
  concurrency?: number;
  /** First poll interval; backs off to 60 s. @default 5_000 */
  pollIntervalMs?: number;
  /** Per job, from the start of its polling in this run. @default 3_600_000 */
  timeoutMs?: number;
  /** Submit again prompts whose earlier submission has an unknown outcome. @default false */
  resubmitUnknown?: boolean;
  signal?: AbortSignal;
  /** @default Math.random */
  random?: () => number;
  onEvent?: (event: BatchEvent) => void;
}

export type BatchEvent =
  | { kind: 'skipped'; key: string; status: string; reason: string }
  | { kind: 'submitted'; key: string; jobId: string | null }
  | { kind: 'status'; key: string; jobId: string | null; status: string }
  | { kind: 'finished'; key: string; row: LedgerRow };

export interface BatchSummary {
  total: number;
  submitted: number;
  /** Final ledger rows for the file's prompts, in file order. */
  rows: LedgerRow[];
  counts: Record<string, number>;
  stopped: StopReason | null;
  stopMessage: string | null;
  exitCode: ExitCode;
}

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What a failed POST means (DESIGN §2 rule 7): a reason to stop submitting (nothing was
 * created), a prompt the API refused, or an unknown outcome that must not be resubmitted.
 */
export function classifySubmitError(error: unknown): { stop: StopReason } | 'rejected' | 'unknown' {
  // 503 with its retries used up, or a connection never made: provably nothing was created.
  if (error instanceof HttpError && error.status === 503) return { stop: 'budget' };
  if (error instanceof NetworkError && error.phase === 'before-send') return { stop: 'budget' };
  const reason = error instanceof DocpipeError ? stopReasonOf(error) : null;
  if (reason !== null) return { stop: reason };
  if (error instanceof HttpError && error.status >= 400 && error.status < 500) return 'rejected';
  // Other 5xx, a reset after sending, a 201 whose body we cannot read, or anything unexpected:
  // the job may exist.
  return 'unknown';
}

interface Stop {
  reason: StopReason;
  cause: unknown;
}

export async function runBatch(options: BatchOptions): Promise<BatchSummary> {
  const { client, ledger, clock, projectId, signal } = options;
  const random = options.random ?? Math.random;
  const pollIntervalMs = options.pollIntervalMs ?? 5_000;
  const timeoutMs = options.timeoutMs ?? 3_600_000;
  const limit = pLimit(Math.max(1, options.concurrency ?? 3));
  // Set by whichever job first meets a reason to stop submitting.
  const state: { stop: Stop | null } = { stop: null };
  let submitted = 0;

  const poll = async (entry: PromptEntry, jobId: string): Promise<void> => {
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
        options.onEvent?.({ kind: 'status', key: entry.key, jobId, status: job.status ?? 'active' });
      },
      onTimeout: () =>
        ledger.recordOutcome(projectId, entry.key, { status: 'timed_out', error: `still active after ${Math.round(timeoutMs / 1000)} s` }, clock.now()),
      onError: (error) => ledger.recordOutcome(projectId, entry.key, { error: message(error) }, clock.now()),
    });
    if (end.kind === 'stopped') state.stop ??= end.stop;
  };

  const submit = async (entry: PromptEntry): Promise<string | null> => {
    await ledger.markPending(projectId, entry.key, entry.prompt, options.sourceFile, clock.now());
    let job: AgentJob;
    try {
      job = await createAgentJob(client, projectId, entry.prompt, signal);
    } catch (error) {
      const kind = classifySubmitError(error);
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
      await ledger.recordOutcome(projectId, entry.key, { error: message(error), nothingCreated: true }, clock.now());
      state.stop ??= { reason: kind.stop, cause: error };
      return null;
    }
    submitted++;
    await ledger.recordJob(projectId, entry.key, job, clock.now(), { submitted: true });
    options.onEvent?.({ kind: 'submitted', key: entry.key, jobId: job.id });
    if (job.id === null) {
      await ledger.recordOutcome(projectId, entry.key, { status: 'unknown', error: 'the API returned a job without an id' }, clock.now());
    }
    // A job that is already over needs no polling.
    return isTerminalStatus(job.status) ? null : job.id;
  };

  const handle = async (entry: PromptEntry): Promise<void> => {
    const existing = await ledger.get(projectId, entry.key);
    if (existing?.status === 'pending' && existing.postStarted) {
      // An earlier run was cut off between recording the prompt and learning the POST's fate.
      existing.status = 'unknown';
      await ledger.recordOutcome(projectId, entry.key, { status: 'unknown', error: 'cut off while submitting; outcome unknown' }, clock.now());
    }
    if (existing && isFinalStatus(existing.status)) {
      options.onEvent?.({ kind: 'skipped', key: entry.key, status: existing.status, reason: 'finished in an earlier run' });
      return;
    }
    if (existing?.status === 'unknown' && !options.resubmitUnknown) {
      options.onEvent?.({ kind: 'skipped', key: entry.key, status: 'unknown', reason: 'outcome unknown; --resubmit-unknown to submit again' });
      return;
    }
    let jobId = existing?.status !== 'unknown' ? (existing?.jobId ?? null) : null;
    if (jobId === null) {
      if (state.stop || signal?.aborted) return; // stop submitting; jobs in flight go on
      jobId = await submit(entry);
    }
    if (jobId !== null) await poll(entry, jobId);
  };

  await Promise.all(options.entries.map((entry) => limit(() => handle(entry))));

  const rows: LedgerRow[] = [];
  for (const entry of options.entries) {
    const row = await ledger.get(projectId, entry.key);
    if (row) rows.push(row);
  }
  const counts: Record<string, number> = {};
  for (const row of rows) counts[row.status] = (counts[row.status] ?? 0) + 1;
  const notStarted = options.entries.length - rows.length;
  if (notStarted > 0) counts['not submitted'] = notStarted;

  const stop = state.stop;
  const interrupted = signal?.aborted === true || stop?.reason === 'interrupted';
  const allFinal = rows.length === options.entries.length && rows.every((r) => isFinalStatus(r.status));
  const stopped: StopReason | null = interrupted ? 'interrupted' : (stop?.reason ?? null);
  const exitCode: ExitCode = runExitCode(stopped, !allFinal);
  const stopCause = stop?.cause;
  return {
    total: options.entries.length,
    submitted,
    rows,
    counts,
    stopped,
    stopMessage: stopCause === undefined ? null : message(stopCause),
    exitCode,
  };
}
