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
import type { HttpClient } from '../api/http-client.js';
import { bareJob, isTerminalStatus, type AgentJob } from '../api/schemas.js';
import type { Clock } from '../core/clock.js';
import { HttpError, PromptTakenError, type ExitCode } from '../core/errors.js';
import { runExitCode, stopReasonOf, type StopReason } from '../core/outcome.js';
import { followJob, RunStop } from './follow-job.js';
import type { JobLedger, LedgerRow } from './ledger.js';
import { decideMessage, isMessageDone, type MessageLedger, type MessageRow } from './message-ledger.js';
import type { MessageEntry } from './message-file.js';
import { markedPost, message, readUnlessHeld, roomForListeners } from './run-batch.js';

export interface MessagesOptions {
  client: HttpClient;
  messages: MessageLedger;
  /** Kept in step for jobs it knows: the job works again after a message. */
  jobs: JobLedger;
  clock: Clock;
  projectId: string;
  sourceFile: string;
  entries: readonly MessageEntry[];
  /** Jobs followed at once. @default 3 */
  concurrency?: number;
  /** @default 5_000 */
  pollIntervalMs?: number;
  /** @default 3_600_000 */
  timeoutMs?: number;
  /** Send again messages whose earlier POST has an unknown outcome. @default false */
  resendUnknown?: boolean;
  signal?: AbortSignal;
  /** @default Math.random */
  random?: () => number;
  onEvent?: (event: MessageEvent) => void;
}

export type MessageEvent =
  | { kind: 'skipped'; key: string; jobId: string; reason: string }
  | { kind: 'sent'; key: string; jobId: string; status: string }
  | { kind: 'status'; key: string; jobId: string; status: string }
  | { kind: 'warning'; key: string; jobId: string; message: string };

export interface MessagesSummary {
  total: number;
  sent: number;
  /** Messages of jobs another run of the same messages took first (that run sends and follows them). */
  taken: number;
  /** Final ledger rows of the messages, in input order. */
  rows: MessageRow[];
  /** By message status, and for sent messages by the job's status (`sent: completed`). */
  counts: Record<string, number>;
  stopped: StopReason | null;
  stopMessage: string | null;
  exitCode: ExitCode;
}

export async function runMessages(options: MessagesOptions): Promise<MessagesSummary> {
  const { client, messages, jobs, clock, projectId, signal } = options;
  const random = options.random ?? Math.random;
  const pollIntervalMs = options.pollIntervalMs ?? 5_000;
  const timeoutMs = options.timeoutMs ?? 3_600_000;
  const limit = pLimit(Math.max(1, options.concurrency ?? 3));
  roomForListeners(signal, options.concurrency ?? 3);
  const state = new RunStop();
  let sent = 0;
  /** Jobs one of whose messages another run of the same messages took: that run follows them. */
  const takenJobs = new Set<string>();
  const taken = (entry: MessageEntry): void => {
    takenJobs.add(entry.jobId);
    options.onEvent?.({ kind: 'skipped', key: entry.key, jobId: entry.jobId, reason: 'taken by another run of the same messages' });
  };

  /**
   * A message done (sent, its job ended) whose prompt's row in agent_jobs has not caught up:
   * a run stopped between its two ledger writes. The job's end goes there too, from what the
   * message's row holds. The prompt rows are read once, when the first done message needs them.
   */
  let promptRows: Promise<Map<string, LedgerRow>> | undefined;
  const catchUpJob = async (entry: MessageEntry, row: MessageRow): Promise<void> => {
    if (entry.promptKey === null || row.jobStatus === null || !isTerminalStatus(row.jobStatus)) return;
    promptRows ??= jobs.byKey(projectId);
    const prompt = (await promptRows).get(entry.promptKey);
    if (prompt === undefined || prompt.jobId !== entry.jobId || isTerminalStatus(prompt.status)) return;
    const job = bareJob(entry.jobId, row.jobStatus, row.prLink);
    await jobs.recordJob(projectId, entry.promptKey, job, clock.now(), { polled: true });
  };

  /** A poll of the job after a message: in the message's row and the prompt's. */
  const recordPoll = async (entry: MessageEntry, job: AgentJob): Promise<void> => {
    await messages.recordJob(projectId, entry.key, job, clock.now());
    if (entry.promptKey !== null) await jobs.recordJob(projectId, entry.promptKey, job, clock.now(), { polled: true });
  };

  /** Follows the job after a message; false if the next message of the job must not be sent. */
  const follow = async (entry: MessageEntry): Promise<boolean> => {
    /** The job's last status seen, for the timeout's words. */
    let last: string | undefined;
    const end = await followJob({
      client,
      clock,
      projectId,
      jobId: entry.jobId,
      pollIntervalMs,
      timeoutMs,
      random,
      signal,
      stopped: state.pollsEnd,
      onJob: async (job) => {
        await recordPoll(entry, job);
        last = job.status ?? 'active';
        options.onEvent?.({ kind: 'status', key: entry.key, jobId: entry.jobId, status: last });
      },
      onTimeout: async () => {
        const error = `still ${last ?? 'active'} after ${Math.round(timeoutMs / 1000)} s`;
        await messages.recordOutcome(projectId, entry.key, { jobStatus: 'timed_out', error }, clock.now());
        if (entry.promptKey !== null) await jobs.recordOutcome(projectId, entry.promptKey, { status: 'timed_out', error }, clock.now());
      },
      onError: (error) => messages.recordOutcome(projectId, entry.key, { error: message(error) }, clock.now()),
    });
    state.afterPoll(end);
    return end.kind === 'ended';
  };

  /**
   * Sends one message: `follow` its job, `next` (the API refused the message: go on with the
   * job's next one), or `halt` (unknown outcome, or the run stops).
   */
  const send = async (entry: MessageEntry, seen: MessageRow | undefined): Promise<'follow' | 'next' | 'halt'> => {
    if (!(await messages.markPending(projectId, entry, options.sourceFile, clock.now(), seen))) {
      // Another run of the same messages took it: it follows the job's messages from here.
      taken(entry);
      return 'halt';
    }
    let job: AgentJob;
    // Marked as being posted only once the budget let the attempt go, and no longer once an
    // answer proves nothing was sent (429, 503), as a job's POST is (./run-batch.ts).
    const post = markedPost(
      () => messages.markPosting(projectId, entry.key, clock.now()),
      () => messages.clearPosting(projectId, entry.key, clock.now()),
      () => new PromptTakenError(`message ${entry.key} was taken by another run`),
    );
    try {
      job = await sendAgentMessage(client, projectId, entry.jobId, entry.prompt, signal, post.hooks);
    } catch (error) {
      if (error instanceof PromptTakenError) {
        taken(entry);
        return 'halt';
      }
      // A 404 here is about this message's job (no such job), not about every message.
      const kind = error instanceof HttpError && error.status === 404 ? 'rejected' : post.classify(error, projectId);
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
      await messages.recordOutcome(projectId, entry.key, { error: kind.message ?? message(error), nothingCreated: true }, clock.now());
      state.stop ??= { reason: kind.stop, cause: error, ...(kind.message ? { message: kind.message } : {}) };
      return 'halt';
    }
    if (job.id !== null && job.id !== entry.jobId) {
      // The message went to the job it names; an answer naming another job does not move the
      // prompt (or this message) to that job: the books keep the job asked for.
      options.onEvent?.({
        kind: 'warning',
        key: entry.key,
        jobId: entry.jobId,
        message: `the API answered the message to job ${entry.jobId} with another job ('${job.id}'); job ${entry.jobId} is followed`,
      });
      // Nothing of the other job (its status, its PR) is taken for this one's.
      job = bareJob(entry.jobId, 'active');
    }
    sent++;
    try {
      await messages.recordSent(projectId, entry.key, job, clock.now());
    } catch (error) {
      // The answer is kept in the spool: the next run records the message as sent and follows its job.
      options.onEvent?.({
        kind: 'warning',
        key: entry.key,
        jobId: entry.jobId,
        message: `message ${entry.key} was sent to job ${entry.jobId} but could not be recorded yet (kept in the spool for the next run): ${message(error)}`,
      });
      throw error;
    }
    // The prompt's job works again: an end in the answer is the job as it was before the message.
    const working = isTerminalStatus(job.status) ? { ...job, status: 'active' } : job;
    if (entry.promptKey !== null) await jobs.recordJob(projectId, entry.promptKey, working, clock.now(), { polled: false });
    options.onEvent?.({ kind: 'sent', key: entry.key, jobId: entry.jobId, status: job.status ?? 'active' });
    // Followed even when the answer says the job ended: a message is processed asynchronously
    // (the API's words), and its answer may show the job as it was before it.
    return 'follow';
  };

  /** One message; false when the job's later messages must wait for another run. */
  const handle = async (entry: MessageEntry): Promise<boolean> => {
    let existing = await messages.get(projectId, entry.key);
    const decision = decideMessage(entry, existing, options.resendUnknown === true);
    switch (decision.action) {
      case 'reused-id':
        // An id used before for another message: the earlier one stands, as for prompts.
        options.onEvent?.({
          kind: 'warning',
          key: entry.key,
          jobId: entry.jobId,
          message: `id '${entry.key}' (line ${entry.line}) was used before for another message (to ${existing!.jobId}, ${existing!.status}); not sent: give the new message its own id`,
        });
        return true;
      case 'taken':
        // Another run that is still going is sending it: the job's messages are that run's.
        taken(entry);
        return false;
    }
    if (decision.markUnknown) {
      await messages.recordOutcome(projectId, entry.key, { status: 'unknown', error: 'cut off while sending; outcome unknown' }, clock.now());
      existing = await messages.get(projectId, entry.key);
    }
    switch (decision.action) {
      case 'done':
        await catchUpJob(entry, existing!);
        options.onEvent?.({ kind: 'skipped', key: entry.key, jobId: entry.jobId, reason: existing!.status === 'sent' ? 'sent in an earlier run' : existing!.status });
        return true;
      case 'skip-unknown':
        options.onEvent?.({ kind: 'skipped', key: entry.key, jobId: entry.jobId, reason: 'outcome unknown; --resubmit-unknown to send again' });
        return false;
      case 'send': {
        if (state.stop || signal?.aborted) return false; // stop sending; jobs being followed go on
        const next = await send(entry, existing);
        if (next !== 'follow') return next === 'next';
        break;
      }
    }
    return follow(entry);
  };

  // Messages an earlier run sent but could not record go in first, and their jobs are followed
  // first, whichever messages this run was given: a job's messages go one after the other.
  // A file held past --lock-timeout (or Ctrl-C while waiting for it) stops the run before its
  // first message, and it ends with its summary like any stop (see readUnlessHeld).
  const carried = await readUnlessHeld(state, async () => {
    const found: MessageEntry[] = [];
    for (const kept of await messages.recoverSent(projectId)) {
      const row = await messages.get(projectId, kept.key);
      if (row === undefined || options.entries.some((e) => e.key === kept.key)) continue;
      found.push({ key: row.messageKey, jobId: row.jobId, promptKey: row.promptKey, prompt: row.prompt, line: 0 });
    }
    return found;
  });
  // A job's messages in order, one after the other; jobs side by side.
  const byJob = new Map<string, MessageEntry[]>();
  if (carried !== undefined) {
    for (const entry of [...carried, ...options.entries]) byJob.set(entry.jobId, [...(byJob.get(entry.jobId) ?? []), entry]);
  }
  await Promise.all(
    [...byJob.values()].map((list) =>
      limit(async () => {
        try {
          for (const entry of list) if (!(await handle(entry))) return;
        } catch (error) {
          // A ledger write that failed (the file held past --lock-timeout, say) stops the run:
          // no message is sent after it (see runBatch).
          state.stop ??= { reason: stopReasonOf(error) ?? 'fatal', cause: error };
        }
      }),
    ),
  );

  // The books as the run left them, unless the file is held (see readUnlessHeld).
  const read = await readUnlessHeld(state, async () => {
    const found: MessageRow[] = [];
    for (const entry of options.entries) {
      const row = await messages.get(projectId, entry.key);
      if (row) found.push(row);
    }
    return found;
  });
  const rows: MessageRow[] = read ?? [];
  const counts: Record<string, number> = {};
  for (const row of rows) {
    const label = row.status === 'sent' ? `sent: ${row.jobStatus ?? 'active'}` : row.status;
    counts[label] = (counts[label] ?? 0) + 1;
  }
  const notSent = options.entries.length - rows.length;
  if (notSent > 0) counts[read === undefined ? 'not read (database held)' : 'not sent'] = notSent;
  const stop = state.stop;
  const interrupted = signal?.aborted === true || stop?.reason === 'interrupted';
  // The messages of jobs another run took do not fail this one.
  const mine = options.entries.filter((e) => !takenJobs.has(e.jobId));
  const mineRows = rows.filter((r) => !takenJobs.has(r.jobId));
  const allDone = mineRows.length === mine.length && mineRows.every(isMessageDone);
  const stopped: StopReason | null = interrupted ? 'interrupted' : (stop?.reason ?? null);
  // A message the run never reached (it stopped first) is listed all the same, `not sent`, so
  // that the summary names every message of the file.
  const byKey = new Map(rows.map((r) => [r.messageKey, r]));
  const listed = read === undefined ? rows : options.entries.map((entry) => byKey.get(entry.key) ?? notSentRow(projectId, entry, options.sourceFile));
  return {
    total: options.entries.length,
    sent,
    taken: options.entries.length - mine.length,
    rows: listed,
    counts,
    stopped,
    stopMessage: stop?.message ?? (stop?.cause === undefined ? null : message(stop.cause)),
    exitCode: runExitCode(stopped, !allDone),
  };
}

/** The row of a message a run never reached: no ledger row, `not sent`. */
function notSentRow(projectId: string, entry: MessageEntry, sourceFile: string): MessageRow {
  return {
    projectId, messageKey: entry.key, jobId: entry.jobId, promptKey: entry.promptKey, prompt: entry.prompt, status: 'not sent',
    statusAfter: null, jobStatus: null, prLink: null, sentAt: null, finishedAt: null, error: null, sourceFile, attempts: 0, polls: 0,
    postStarted: false,
  };
}
