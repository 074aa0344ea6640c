/**
 * The message ledger (`agent_messages`): one row per follow-up message, written as `pending`
 * before its POST, so a crash between the two leaves a trace and nothing is sent twice. Each
 * write is one statement, committed before its call returns; writes that meet share one short
 * write (Store.run), like the job ledger's.
 */
import { isTerminalStatus, type AgentJob } from '../api/schemas.js';
import { NOTHING_CREATED_ONLY_IF_MINE, TERMINAL_SQL, clearPosting, markPosting, markPostsInFlight, type PostRows } from './ledger.js';
import type { Store } from '../load/store.js';
import { whereEquals } from '../load/sql-files.js';
import { readKeptJobs, recordKeeping, recoverKept, type KeptJob } from '../spool/kept-jobs.js';

/** A message's own status (the job's is `jobStatus`). */
export const MESSAGE_STATUSES = ['pending', 'sent', 'unknown', 'rejected'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export interface MessageRow {
  projectId: string;
  messageKey: string;
  jobId: string;
  promptKey: string | null;
  prompt: string;
  status: string;
  /** The job's status in the API's answer to the message. */
  statusAfter: string | null;
  /** The job's status as last seen while followed (or `timed_out`). */
  jobStatus: string | null;
  prLink: string | null;
  sentAt: string | null;
  finishedAt: string | null;
  error: string | null;
  sourceFile: string | null;
  attempts: number;
  polls: number;
  /** A POST was started and not provably without effect. */
  postStarted: boolean;
  /** That POST belongs to a run still going (`get` reads it): the message is that run's. */
  postInFlight?: boolean;
  /**
   * When the row was last written, in microseconds since the epoch: a run sends a message it
   * read only if no other run wrote the row since (two runs of one message file at once).
   */
  writtenUs?: number;
}

/** A message after which nothing more happens without the user asking. */
export function isMessageDone(row: Pick<MessageRow, 'status' | 'jobStatus'>): boolean {
  return row.status === 'rejected' || (row.status === 'sent' && isTerminalStatus(row.jobStatus));
}

/**
 * What a run does with one message, given its ledger row: the one decision the run
 * (run-messages.ts) and `jobs message --dry-run` both take. Pure.
 * - `reused-id`: the key names another message (another job or text); the earlier one stands.
 * - `taken`: another run that is still going has its POST in flight.
 * - `done`, `skip-unknown` (outcome unknown, not asked to send again), `send`, `follow`.
 * `markUnknown`: an earlier run was cut off between recording it and learning the POST's fate.
 */
export function decideMessage(
  entry: { jobId: string; prompt: string },
  row: MessageRow | undefined,
  resendUnknown: boolean,
): { action: 'reused-id' | 'taken' | 'done' | 'skip-unknown' | 'send' | 'follow'; status: string | null; markUnknown: boolean } {
  if (!row) return { action: 'send', status: null, markUnknown: false };
  if (row.jobId !== entry.jobId || row.prompt !== entry.prompt) return { action: 'reused-id', status: row.status, markUnknown: false };
  if (row.postInFlight === true) return { action: 'taken', status: row.status, markUnknown: false };
  const markUnknown = row.status === 'pending' && row.postStarted;
  const status = markUnknown ? 'unknown' : row.status;
  const action = isMessageDone({ status, jobStatus: row.jobStatus })
    ? 'done'
    : status === 'unknown'
      ? resendUnknown ? 'send' : 'skip-unknown'
      : status === 'sent' ? 'follow' : 'send';
  return { action, status, markUnknown };
}

const ts = (ms: number): string => new Date(ms).toISOString();
const time = (column: string): string => `strftime(${column} AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ') AS ${column}`;

const SELECT = `SELECT project_id, message_key, job_id, prompt_key, prompt, status, status_after, job_status, pr_link,
  ${time('sent_at')}, ${time('finished_at')}, error, source_file, attempts, polls,
  post_started_at IS NOT NULL AS post_started, epoch_us(updated_at) AS written_us, run_id FROM agent_messages`;

function toRow(r: Record<string, unknown>): MessageRow {
  const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
  return {
    projectId: String(r.project_id),
    messageKey: String(r.message_key),
    jobId: String(r.job_id),
    promptKey: str(r.prompt_key),
    prompt: String(r.prompt ?? ''),
    status: String(r.status),
    statusAfter: str(r.status_after),
    jobStatus: str(r.job_status),
    prLink: str(r.pr_link),
    sentAt: str(r.sent_at),
    finishedAt: str(r.finished_at),
    error: str(r.error),
    sourceFile: str(r.source_file),
    attempts: Number(r.attempts ?? 0),
    polls: Number(r.polls ?? 0),
    postStarted: r.post_started === true,
    ...(r.written_us === null || r.written_us === undefined ? {} : { writtenUs: Number(r.written_us) }),
  };
}

/** A row still waiting for its POST's answer: one kept in the spool goes in (recoverSent). */
function awaitsAnswer(row: MessageRow | undefined): row is MessageRow {
  return row !== undefined && (row.status === 'pending' || row.status === 'unknown');
}

const MESSAGE_ROWS: PostRows = { table: 'agent_messages', key: 'message_key' };

export class MessageLedger {
  constructor(
    private readonly store: Store,
    private readonly runId: string,
    /** The spool, where the answer to a message the ledger could not take is kept (../spool/kept-jobs.ts). */
    private readonly spoolRoot?: string,
  ) {}

  /**
   * Records the API's answer to a message (`sent`). The answer is in the spool first, and
   * leaves it once the ledger has it: a run killed while it waits for the database (or one
   * that gives up on it, which throws) leaves it for the next run to record.
   */
  recordSent(projectId: string, messageKey: string, job: AgentJob, now: number): Promise<void> {
    return recordKeeping(this.spoolRoot, 'sent', { projectId, key: messageKey, job, at: now }, () =>
      this.recordJob(projectId, messageKey, job, now, { sent: true }),
    );
  }

  /**
   * Writes the answers an earlier run kept in the spool into the ledger (a message whose row
   * is no longer waiting for its answer keeps what it has), then removes them. Returns the
   * answers recorded.
   */
  recoverSent(projectId: string): Promise<KeptJob[]> {
    return recoverKept(this.spoolRoot, 'sent', projectId, async (kept) => {
      if (!awaitsAnswer(await this.get(projectId, kept.key))) return false;
      await this.recordJob(projectId, kept.key, kept.job, kept.at, { sent: true });
      return true;
    });
  }

  /** The answers kept in the spool for a project, by message key (what the next run records first). */
  keptAnswers(projectId: string): Map<string, KeptJob> {
    if (this.spoolRoot === undefined) return new Map();
    return new Map(readKeptJobs(this.spoolRoot, 'sent', projectId).map(({ kept }) => [kept.key, kept]));
  }

  /**
   * `get` as the next run will find the row: with its answer kept in the spool (`kept`, from
   * keptAnswers), which that run records first, on it; written nowhere. What a dry run decides from.
   */
  async getWithKept(projectId: string, messageKey: string, kept: ReadonlyMap<string, KeptJob>): Promise<MessageRow | undefined> {
    const row = await this.get(projectId, messageKey);
    const answer = kept.get(messageKey);
    if (answer === undefined || !awaitsAnswer(row)) return row;
    const status = answer.job.status ?? 'active';
    return { ...row, status: 'sent', statusAfter: status, jobStatus: status, prLink: answer.job.prLink, postStarted: false, postInFlight: false };
  }

  async get(projectId: string, messageKey: string): Promise<MessageRow | undefined> {
    return this.store.read(async (db) => {
      const rows = (await db.all(`${SELECT} WHERE project_id = $p AND message_key = $k`, { p: projectId, k: messageKey }))
        .map((r) => ({ row: toRow(r), runId: r.run_id }));
      await markPostsInFlight(db, rows);
      return rows[0]?.row;
    });
  }

  async list(filter: { projectId?: string; jobId?: string } = {}): Promise<MessageRow[]> {
    const { where, params } = whereEquals({ project_id: filter.projectId, job_id: filter.jobId });
    const sql = `${SELECT}${where} ORDER BY sent_at NULLS LAST, updated_at, message_key`;
    return (await this.store.read((db) => db.all(sql, params))).map(toRow);
  }

  /**
   * The message's turn has come: `pending`, not yet posted (a message that then waits for the
   * hourly budget and is killed there is provably not sent), and this run's: only if the row
   * is still as `seen` (absent, or not written since it was read), since another run of the
   * same messages at once may have taken it meanwhile. Returns whether this run has it.
   */
  markPending(
    projectId: string,
    message: { key: string; jobId: string; promptKey: string | null; prompt: string },
    sourceFile: string,
    now: number,
    seen?: MessageRow,
  ): Promise<boolean> {
    const params = { p: projectId, k: message.key, job: message.jobId, pk: message.promptKey, prompt: message.prompt, file: sourceFile, now: ts(now), run: this.runId };
    return seen === undefined
      ? this.store.claim(
          `INSERT INTO agent_messages (project_id, message_key, job_id, prompt_key, prompt, status, source_file, attempts, polls,
                                       updated_at, run_id, post_started_at)
           VALUES ($p, $k, $job, $pk, $prompt, 'pending', $file, 0, 0, $now::TIMESTAMPTZ, $run, NULL)
           ON CONFLICT (project_id, message_key) DO NOTHING RETURNING message_key`,
          params,
        )
      : this.store.claim(
          `UPDATE agent_messages SET
             job_id = $job, prompt_key = $pk, prompt = $prompt, status = 'pending',
             status_after = NULL, job_status = NULL, pr_link = NULL, sent_at = NULL, finished_at = NULL, error = NULL,
             source_file = $file, polls = 0,
             updated_at = $now::TIMESTAMPTZ, run_id = $run, post_started_at = NULL
           WHERE project_id = $p AND message_key = $k AND epoch_us(updated_at) IS NOT DISTINCT FROM $written
           RETURNING message_key`,
          { ...params, written: seen.writtenUs ?? null },
        );
  }

  /**
   * Just before a POST attempt goes out, after any wait for the budget: from here its outcome
   * is unknown until the answer. Only while the message is still this run's: false if another
   * run took it since `markPending`, and then nothing may be sent.
   */
  markPosting(projectId: string, messageKey: string, now: number): Promise<boolean> {
    return markPosting(this.store, MESSAGE_ROWS, { projectId, key: messageKey, runId: this.runId, now });
  }

  /** An attempt provably sent nothing (429, 503): the message is not being posted any more. */
  clearPosting(projectId: string, messageKey: string, now: number): Promise<void> {
    return clearPosting(this.store, MESSAGE_ROWS, { projectId, key: messageKey, runId: this.runId, now });
  }

  /** The API answered the message (`sent`) or a poll of its job: the job's status and PR now. */
  async recordJob(projectId: string, messageKey: string, job: AgentJob, now: number, opts: { sent?: boolean } = {}): Promise<void> {
    const status = job.status ?? 'active';
    // A poll never takes a job that ended back to a status before its end (nor drops its PR):
    // another run following the same job may write a poll it made earlier after this one's.
    const ended = `NOT $sent AND job_status IN (${TERMINAL_SQL})`;
    await this.store.run(
      `UPDATE agent_messages SET
         status = CASE WHEN $sent THEN 'sent' ELSE status END,
         status_after = CASE WHEN $sent THEN $status ELSE status_after END,
         sent_at = CASE WHEN $sent THEN $now::TIMESTAMPTZ ELSE sent_at END,
         -- The answer to the message shows the job as it was before it (the message is processed
         -- asynchronously): an end there is no end; the job works again until a poll says it ended.
         job_status = CASE WHEN $sent AND $terminal THEN 'active' WHEN ${ended} AND NOT $terminal THEN job_status ELSE $status END,
         pr_link = CASE WHEN ${ended} AND NOT $terminal THEN pr_link ELSE coalesce($pr, pr_link) END,
         finished_at = CASE WHEN $terminal AND NOT $sent THEN coalesce(finished_at, $now::TIMESTAMPTZ) WHEN ${ended} THEN finished_at END,
         polls = polls + CASE WHEN $sent THEN 0 ELSE 1 END,
         error = NULL, updated_at = $now::TIMESTAMPTZ, run_id = $run
       WHERE project_id = $p AND message_key = $k`,
      { p: projectId, k: messageKey, sent: opts.sent ?? false, status, pr: job.prLink, terminal: isTerminalStatus(status), now: ts(now), run: this.runId },
    );
  }

  /**
   * A local outcome: the message's (`unknown`, `rejected`), the job's (`timed_out`), or an
   * error kept beside the status.
   */
  async recordOutcome(
    projectId: string,
    messageKey: string,
    outcome: { status?: MessageStatus; jobStatus?: 'timed_out'; error: string | null; nothingCreated?: boolean },
    now: number,
  ): Promise<void> {
    await this.store.run(
      // The job's status is the API's: a local one (timed_out) replaces only `active` (or itself);
      // one the API does not document stays, the timeout beside it in `error`.
      `UPDATE agent_messages SET status = coalesce($status, status),
         job_status = CASE WHEN $jobStatus IS NULL THEN job_status
                           WHEN job_status IS NULL OR job_status IN ('active', 'timed_out') THEN $jobStatus
                           ELSE job_status END,
         error = $error, post_started_at = CASE WHEN $nothing THEN NULL ELSE post_started_at END,
         updated_at = $now::TIMESTAMPTZ, run_id = $run
       WHERE project_id = $p AND message_key = $k ${NOTHING_CREATED_ONLY_IF_MINE}`,
      {
        p: projectId,
        k: messageKey,
        status: outcome.status ?? null,
        jobStatus: outcome.jobStatus ?? null,
        error: outcome.error,
        nothing: outcome.nothingCreated ?? false,
        now: ts(now),
        run: this.runId,
      },
    );
  }
}
