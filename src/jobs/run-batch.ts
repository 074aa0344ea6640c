/**
 * The batch runner: for each prompt, submit it once (ledger first, then POST) and poll the
 * job to its end, with at most `concurrency` jobs in flight. It resumes from the ledger:
 * submitted prompts are never submitted again, unfinished jobs are polled again, and a POST
 * whose outcome is unknown is left alone unless `resubmitUnknown`.
 */
import { getMaxListeners, setMaxListeners } from 'node:events';
import pLimit from 'p-limit';
import { createAgentJob } from '../api/agent.js';
import type { HttpClient } from '../api/http-client.js';
import { isKnownApiStatus, isTerminalStatus, type AgentJob } from '../api/schemas.js';
import type { Clock } from '../core/clock.js';
import { DatabaseBusyError, DocpipeError, HttpError, InterruptedError, KeyRejectedError, NetworkError, PromptTakenError, type ExitCode } from '../core/errors.js';
import { runExitCode, stopReasonOf, type StopReason } from '../core/outcome.js';
import { decidePrompt } from './decide-prompt.js';
import { isFinalRow, type JobLedger, type LedgerRow } from './ledger.js';
import { followJob, RunStop, type Stop } from './follow-job.js';
import type { PromptEntry } from './prompt-files.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

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

/** Every event names the prompt by its key and the start of its text. */
export type BatchEvent = { key: string; prompt: string } & (
  | { kind: 'skipped'; status: string; reason: string }
  | { kind: 'submitted'; jobId: string | null }
  | { kind: 'status'; jobId: string | null; status: string; reason?: string }
  | { kind: 'warning'; message: string }
);

/** The start of a prompt on one line, for progress lines. */
export function promptStart(text: string, width = 48): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

export interface BatchSummary {
  total: number;
  submitted: number;
  /** Prompts another run of the same prompts took first; that run follows them, and they do not fail this one. */
  taken: number;
  /** Final ledger rows for the file's prompts, in file order. */
  rows: LedgerRow[];
  /** Whether `rows` were read: not when the batch stopped on a held file (they are then unknown here). */
  rowsRead: boolean;
  counts: Record<string, number>;
  stopped: StopReason | null;
  stopMessage: string | null;
  exitCode: ExitCode;
}

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Why the API refused to create any job (a 4xx other than 400 and 429): the same refusal
 * would meet every prompt, so the batch stops, and nothing was created.
 */
function refusalMessage(error: HttpError, projectId: string): string {
  // A refused key says so in one place (KeyRejectedError), for exports and jobs alike.
  if (error instanceof KeyRejectedError) return error.message;
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
 * created), a prompt the API refused (a 400, or a 413: the prompt itself, too large, which a
 * re-run would send again and be refused again, the rest of the file held up behind it), or an
 * unknown outcome that must not be resubmitted.
 */
export function classifySubmitError(error: unknown, projectId: string): { stop: StopReason; message?: string } | 'rejected' | 'unknown' {
  // 503 with its retries used up, or a connection never made: provably nothing was created.
  if (error instanceof HttpError && error.status === 503) return { stop: 'budget' };
  if (error instanceof NetworkError && error.phase === 'before-send') return { stop: 'budget' };
  if (error instanceof HttpError && (error.status === 400 || error.status === 413)) return 'rejected';
  if (error instanceof HttpError && error.status > 400 && error.status < 500 && error.status !== 429) {
    return { stop: 'fatal', message: refusalMessage(error, projectId) };
  }
  const reason = error instanceof DocpipeError ? stopReasonOf(error) : null;
  if (reason !== null) return { stop: reason };
  // Other 5xx, a reset after sending, a 201 whose body we cannot read, or anything unexpected:
  // the job may exist.
  return 'unknown';
}

/**
 * An error before the POST went out: nothing was created, the prompt stays `pending`, and the
 * batch stops (a stop it names, or a local failure such as a full disk, which the next prompt
 * would meet too).
 */
function notSentError(error: unknown): { stop: StopReason; message?: string } {
  const reason = error instanceof DocpipeError ? stopReasonOf(error) : null;
  return reason !== null ? { stop: reason } : { stop: 'fatal', message: `could not send (nothing was sent; it stays pending): ${message(error)}` };
}

/**
 * Lets every concurrent job listen to the run's stop signal (its request, its wait, its poll):
 * past Node's default of 10 listeners a line `MaxListenersExceededWarning` went to stderr,
 * which is not a JSON log line (with --concurrency 11 and up). Never lowers the limit.
 */
export function roomForListeners(signal: AbortSignal | undefined, concurrency: number): void {
  if (!signal) return;
  const wanted = Math.max(1, concurrency) * 4 + 10;
  const now = getMaxListeners(signal);
  if (now !== 0 && now < wanted) setMaxListeners(wanted, signal);
}

/**
 * The hooks of a POST (a job's, a message's) that the ledger marks as being posted once the
 * budget lets it go (`mark`; false: another run took it, `taken` is thrown) and clears once an
 * answer proves nothing was created (429, 503, a refused connection), and how to read its
 * failure: an error before the POST went to the transport (a full disk refusing the request
 * journal's line, a ledger write that failed) sent nothing, whatever it is.
 */
export function markedPost(mark: () => Promise<boolean>, clear: () => Promise<void>, taken: () => Error) {
  let handedOver = false;
  return {
    hooks: {
      beforeSend: async (): Promise<void> => {
        if (!(await mark())) throw taken();
        handedOver = true;
      },
      afterSend: (status: number, notSent: boolean): Promise<void> => {
        if (!(notSent || status === 429 || status === 503)) return Promise.resolve();
        handedOver = false; // provably nothing created: as if not sent
        return clear();
      },
    },
    classify: (error: unknown, projectId: string): ReturnType<typeof classifySubmitError> => {
      // What the answer proves comes first (503s to the end: the budget's stop, exit 75);
      // only an error that proves nothing is read by where it happened.
      const kind = classifySubmitError(error, projectId);
      return kind === 'unknown' && !handedOver ? notSentError(error) : kind;
    },
  };
}

/**
 * A batch's closing read of its books, unless the file is held: skipped when the batch stopped
 * on the held file already, and a read that meets it stops the batch the same way (undefined).
 */
export async function readUnlessHeld<T>(state: { stop: Stop | null }, read: () => Promise<T>): Promise<T | undefined> {
  if (state.stop?.reason === 'locked') return undefined;
  try {
    return await read();
  } catch (error) {
    // Ctrl-C (SIGTERM) during the wait for a held file ends the wait: the batch ends as stopped.
    if (error instanceof InterruptedError) {
      state.stop ??= { reason: 'interrupted', cause: error };
      return undefined;
    }
    if (!(error instanceof DatabaseBusyError)) throw error;
    state.stop ??= { reason: 'locked', cause: error };
    return undefined;
  }
}

/** The row of a prompt a batch never reached: no ledger row, `not submitted`. */
function notSubmittedRow(projectId: string, entry: PromptEntry, sourceFile: string): LedgerRow {
  return {
    projectId, promptKey: entry.key, prompt: entry.prompt, jobId: null, status: 'not submitted', model: null, repository: null, ref: null,
    prLink: null, createdAt: null, archivedAt: null, submittedAt: null, finishedAt: null, error: null, flags: null, sourceFile,
    attempts: 0, polls: 0, postStarted: false,
  };
}

export async function runBatch(options: BatchOptions): Promise<BatchSummary> {
  const { client, ledger, clock, projectId, signal } = options;
  const random = options.random ?? Math.random;
  const pollIntervalMs = options.pollIntervalMs ?? 5_000;
  const timeoutMs = options.timeoutMs ?? 3_600_000;
  const limit = pLimit(Math.max(1, options.concurrency ?? 3));
  roomForListeners(signal, options.concurrency ?? 3);
  // Set by whichever job first meets a reason to stop submitting.
  const state = new RunStop();
  let submitted = 0;

  const event = (entry: PromptEntry, fields: DistributiveOmit<BatchEvent, 'key' | 'prompt'>): void =>
    options.onEvent?.({ key: entry.key, prompt: promptStart(entry.prompt), ...fields } as BatchEvent);

  const poll = async (entry: PromptEntry, jobId: string, known: string | null): Promise<void> => {
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
      stopped: state.pollsEnd,
      onJob: async (job) => {
        await ledger.recordJob(projectId, entry.key, job, clock.now(), { polled: true });
        const status = job.status ?? 'active';
        if (job.badPrLink !== null) event(entry, { kind: 'warning', message: `prLink is not a URL, flagged and not stored: ${JSON.stringify(job.badPrLink.slice(0, 200))}` });
        if (status !== last && !isKnownApiStatus(status)) {
          event(entry, { kind: 'warning', message: `status '${status}' is not one the API documents: stored as it is, and followed like active until the run's timeout` });
        }
        last = status;
        event(entry, { kind: 'status', jobId, status, ...(job.reason !== null ? { reason: job.reason } : {}) });
      },
      // The ledger keeps a status the API gave that docpipe does not know; the timeout goes beside it.
      onTimeout: () =>
        ledger.recordOutcome(projectId, entry.key, { status: 'timed_out', error: `still ${last ?? 'active'} after ${Math.round(timeoutMs / 1000)} s` }, clock.now()),
      onError: async (error) => {
        await ledger.recordOutcome(projectId, entry.key, { error: message(error) }, clock.now());
        event(entry, { kind: 'warning', message: `poll failed: ${message(error)}` });
      },
    });
    if (end.kind === 'lost') lostKeys.add(entry.key);
    state.afterPoll(end);
  };

  const takenKeys = new Set<string>();
  /** Jobs the API answered 404 in this run: shown `lost` in its summary (the ledger keeps their status, and the next run polls them again). */
  const lostKeys = new Set<string>();
  const taken = (entry: PromptEntry): null => {
    takenKeys.add(entry.key);
    event(entry, { kind: 'skipped', status: 'pending', reason: 'taken by another run of the same prompts' });
    return null;
  };

  const submit = async (entry: PromptEntry, seen: LedgerRow | undefined): Promise<{ jobId: string; status: string | null } | null> => {
    if (!(await ledger.markPending(projectId, entry.key, entry.prompt, options.sourceFile, clock.now(), seen))) return taken(entry);
    let job: AgentJob;
    const post = markedPost(
      () => ledger.markPosting(projectId, entry.key, clock.now()),
      () => ledger.clearPosting(projectId, entry.key, clock.now()),
      () => new PromptTakenError(`prompt ${entry.key} was taken by another run`),
    );
    try {
      // Marked as being posted only once the budget let the attempt go, and no longer once an
      // answer proves nothing was created (429, 503): a prompt killed while it waited for the
      // hourly budget, or for a Retry-After, stays provably unsubmitted. A prompt another run
      // took meanwhile is not sent.
      job = await createAgentJob(client, projectId, entry.prompt, signal, post.hooks);
    } catch (error) {
      if (error instanceof PromptTakenError) return taken(entry);
      const kind = post.classify(error, projectId);
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
    // An answer without an id leaves no job to follow, though one may exist: its outcome is
    // unknown, written with the answer in one statement (whatever status the API gave).
    const answer: AgentJob =
      job.id === null ? { ...job, status: 'unknown', reason: `the API returned a job without an id (status ${job.status ?? 'none'})` } : job;
    try {
      await ledger.recordCreated(projectId, entry.key, answer, clock.now());
    } catch (error) {
      // The answer is kept in the spool: the next batch records the job and follows it.
      event(entry, { kind: 'warning', message: `job ${job.id ?? '(no id)'} was created but could not be recorded yet (kept in the spool for the next run): ${message(error)}` });
      throw error;
    }
    event(entry, { kind: 'submitted', jobId: job.id });
    if (job.id !== null) {
      const other = keyOfJob.get(job.id);
      if (other !== undefined && other !== entry.key) {
        event(entry, { kind: 'warning', message: `the API answered with job ${job.id}, the job of prompt ${other} too: both prompts follow that one job` });
      }
      keyOfJob.set(job.id, entry.key);
    }
    // A job that is already over needs no polling.
    return isTerminalStatus(job.status) || job.id === null ? null : { jobId: job.id, status: job.status };
  };

  // Jobs an earlier batch created but could not record go in first, to be followed. Then one
  // read of the ledger for the whole batch; each prompt's decision is the dry run's too. A
  // file held past --lock-timeout (or Ctrl-C while waiting for it) stops the batch before its
  // first prompt, and it ends with its summary like any stop (see readUnlessHeld).
  const opened = await readUnlessHeld(state, async () => {
    await ledger.recoverCreated(projectId);
    return ledger.byKey(projectId);
  });
  const before = opened ?? new Map<string, LedgerRow>();
  /** The prompt each known job id answered (the ledger's, then this batch's): one id answering two prompts is warned about. */
  const keyOfJob = new Map<string, string>();
  for (const [key, row] of before) if (row.jobId !== null && !keyOfJob.has(row.jobId)) keyOfJob.set(row.jobId, key);

  const handle = async (entry: PromptEntry): Promise<void> => {
    try {
      await handleEntry(entry);
    } catch (error) {
      // A ledger write that failed (the file held past --lock-timeout, say) stops the batch:
      // no prompt is submitted after it, and the batch ends with that reason, its other jobs
      // ending as they do on any stop. Thrown out of here, it would leave the other prompts
      // going on in the background of a run that had already reported its end.
      state.stop ??= { reason: stopReasonOf(error) ?? 'fatal', cause: error };
    }
  };

  const handleEntry = async (entry: PromptEntry): Promise<void> => {
    const existing = before.get(entry.key);
    const decision = decidePrompt(entry, existing, { resubmitUnknown: options.resubmitUnknown ?? false });
    if (decision.warning) event(entry, { kind: 'warning', message: decision.warning });
    if (decision.markUnknown && decision.action === 'skip') {
      // An earlier run was cut off between marking the POST and learning its fate. (A prompt
      // submitted again with --resubmit-unknown is claimed as it was read, and goes `pending`.)
      // Only if no other run wrote the row since it was read (one with --resubmit-unknown may
      // have taken the prompt, and be submitting it now).
      await ledger.recordOutcome(projectId, entry.key, { status: 'unknown', error: 'cut off while submitting; outcome unknown' }, clock.now(), existing);
    }
    if (decision.action === 'taken') {
      taken(entry);
      return;
    }
    if (decision.action === 'skip') {
      event(entry, { kind: 'skipped', status: decision.status ?? 'unknown', reason: decision.reason });
      return;
    }
    if (decision.action === 'poll') {
      await poll(entry, existing!.jobId!, decision.status);
      return;
    }
    if (state.stop || signal?.aborted) return; // stop submitting; jobs in flight go on
    const job = await submit(entry, existing);
    if (job !== null) await poll(entry, job.jobId, job.status);
  };

  if (opened !== undefined) await Promise.all(options.entries.map((entry) => limit(() => handle(entry))));

  // The ledger as the batch left it; not read when the file is held (the batch stopped on
  // that, and another wait would only delay its summary): its rows are then unknown here.
  const after = await readUnlessHeld(state, () => ledger.byKey(projectId));
  const rows: LedgerRow[] = [];
  for (const entry of options.entries) {
    if (after === undefined) break;
    const row = after.get(entry.key);
    if (!row) {
      // Never reached (the batch stopped first): listed all the same, so that the results
      // file and the summary name every prompt of the batch.
      rows.push(notSubmittedRow(projectId, entry, options.sourceFile));
      continue;
    }
    // Unfinished, as this run saw it end: a job lost (404) in this run, or a prompt another run
    // of the same prompts has (it submits and follows it), not pending here.
    const seen = isFinalRow(row) ? null : lostKeys.has(row.promptKey) ? 'lost' : takenKeys.has(row.promptKey) ? 'taken' : null;
    rows.push(seen === null ? row : { ...row, status: seen });
  }
  const counts: Record<string, number> = {};
  for (const row of rows) counts[row.status] = (counts[row.status] ?? 0) + 1;
  if (after === undefined && options.entries.length > 0) counts['not read (database held)'] = options.entries.length;

  const stop = state.stop;
  const interrupted = signal?.aborted === true || stop?.reason === 'interrupted';
  const allFinal = rows.length === options.entries.length && rows.every((r) => takenKeys.has(r.promptKey) || isFinalRow(r));
  const stopped: StopReason | null = interrupted ? 'interrupted' : (stop?.reason ?? null);
  const exitCode: ExitCode = runExitCode(stopped, !allFinal);
  const stopCause = stop?.cause;
  return {
    total: options.entries.length,
    submitted,
    taken: takenKeys.size,
    rows,
    rowsRead: after !== undefined,
    counts,
    stopped,
    stopMessage: stop?.message ?? (stopCause === undefined ? null : message(stopCause)),
    exitCode,
  };
}
