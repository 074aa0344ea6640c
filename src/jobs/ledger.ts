/**
 * The job ledger (`agent_jobs`): one row per (project, prompt key). A row is written as
 * `pending` when its turn comes, and marked as being posted (`post_started_at`) only just
 * before the POST goes out, after any wait for the budget; so a crash leaves a trace, and
 * only a prompt that may have reached the server counts as `unknown`. Every response then
 * updates the row. Each write is one statement, committed before its call returns, in a short
 * write (the database file is held only for it, so a batch that follows jobs for an hour leaves
 * the file to readers between polls), so the ledger is consistent after a crash. Writes that
 * arrive while another is committing go in together in the next short write (Store.run).
 */
import { TERMINAL_STATUSES, isTerminalStatus, type AgentJob } from '../api/schemas.js';
import type { Executor } from '../load/database.js';
import { readLiveRunIds } from '../load/runs.js';
import type { Store } from '../load/store.js';
import { whereEquals } from '../load/sql-files.js';
import { readKeptJobs, recordKeeping, recoverKept } from '../spool/kept-jobs.js';

/** Statuses docpipe sets itself, beside the API's own. */
export const LOCAL_STATUSES = ['pending', 'unknown', 'timed_out', 'rejected'] as const;
export type LocalStatus = (typeof LOCAL_STATUSES)[number];

export interface LedgerRow {
  projectId: string;
  promptKey: string;
  prompt: string;
  jobId: string | null;
  status: string;
  model: string | null;
  repository: string | null;
  ref: string | null;
  prLink: string | null;
  createdAt: string | null;
  archivedAt: string | null;
  submittedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  /** Data-quality flags, comma-separated (`pr_link_not_url`). */
  flags: string | null;
  sourceFile: string | null;
  attempts: number;
  polls: number;
  /** A POST was started and not provably without effect. */
  postStarted: boolean;
  /**
   * That POST belongs to a run that is still going (`byKey` reads it): its answer is that
   * run's to record, and another run must neither post the prompt again nor call it unknown.
   */
  postInFlight?: boolean;
  /** Follow-up messages sent to the job (`jobs message`); read by `list` only. */
  messages?: number;
  /**
   * When the row was last written, in microseconds since the epoch: a batch claims a prompt it
   * read only if no other run wrote the row since (two batches of one file at once).
   */
  writtenUs?: number;
}

/**
 * Sets `postInFlight` on rows (of either ledger, with the run that wrote each) whose open POST
 * belongs to a run still going. Runs are read only when some POST is open: none, unless a run
 * was cut off or is posting now.
 */
export async function markPostsInFlight(
  db: Executor,
  rows: readonly { row: { status: string; postStarted: boolean; postInFlight?: boolean }; runId: unknown }[],
): Promise<void> {
  const open = rows.filter(({ row }) => row.status === 'pending' && row.postStarted);
  if (open.length === 0) return;
  const live = await readLiveRunIds(db);
  for (const { row, runId } of open) row.postInFlight = typeof runId === 'string' && live.has(runId);
}

/** A status after which nothing more will happen to the row without the user asking. */
export function isFinalStatus(status: string): boolean {
  return isTerminalStatus(status) || status === 'rejected';
}

/**
 * Whether a row is over: a row with a job id holds the API's status, and only the API's own
 * ends are final (a name it shares with a local status, `rejected`, is followed like any status
 * the API does not document); a row without one, by the local statuses too.
 */
export function isFinalRow(row: { jobId: string | null; status: string }): boolean {
  return row.jobId !== null ? isTerminalStatus(row.status) : isFinalStatus(row.status);
}

const ts = (ms: number): string => new Date(ms).toISOString();
/** The API's statuses of a job that ended, as an SQL list. */
export const TERMINAL_SQL = [...TERMINAL_STATUSES].map((s) => `'${s}'`).join(', ');

const COLUMNS = `project_id, prompt_key, prompt, job_id, status, model, repository, ref, pr_link,
  strftime(created_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ') AS created_at,
  strftime(archived_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ') AS archived_at,
  strftime(submitted_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ') AS submitted_at,
  strftime(finished_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ') AS finished_at,
  error, flags, source_file, attempts, polls, post_started_at IS NOT NULL AS post_started, epoch_us(updated_at) AS written_us, run_id`;
const SELECT = `SELECT ${COLUMNS} FROM agent_jobs`;
/** The follow-up messages sent to a row's job (agent_messages, schema version 3). */
const MESSAGES = `(SELECT count(*) FROM agent_messages m
   WHERE m.project_id = agent_jobs.project_id AND m.job_id = agent_jobs.job_id AND m.status = 'sent')::INTEGER AS messages`;

type RawRow = Record<string, unknown>;

function toRow(r: RawRow): LedgerRow {
  const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
  return {
    projectId: String(r.project_id),
    promptKey: String(r.prompt_key),
    prompt: String(r.prompt ?? ''),
    jobId: str(r.job_id),
    status: String(r.status),
    model: str(r.model),
    repository: str(r.repository),
    ref: str(r.ref),
    prLink: str(r.pr_link),
    createdAt: str(r.created_at),
    archivedAt: str(r.archived_at),
    submittedAt: str(r.submitted_at),
    finishedAt: str(r.finished_at),
    error: str(r.error),
    flags: str(r.flags),
    sourceFile: str(r.source_file),
    attempts: Number(r.attempts ?? 0),
    polls: Number(r.polls ?? 0),
    postStarted: r.post_started === true,
    ...(r.messages === undefined ? {} : { messages: Number(r.messages) }),
    ...(r.written_us === null || r.written_us === undefined ? {} : { writtenUs: Number(r.written_us) }),
  };
}

/**
 * An API timestamp as stored: ISO 8601 (a four-digit year, the time optional; one without a
 * zone is UTC, as docpipe's every time is). Anything else (`Oct 31`, `1`, a year past 9999
 * that JavaScript reads and DuckDB refuses) is dropped rather than failing the write, which
 * would stop every later run of the batch on the same answer.
 */
export function apiTime(value: string | null): string | null {
  if (value === null) return null;
  const text = value.trim();
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/.exec(text);
  if (!iso || Number(iso[1]) < 1) return null;
  // A day the month does not have (2024-02-30) is no date, not the 1st of the next month.
  const day = Number(iso[3]);
  if (new Date(Date.UTC(Number(iso[1]), Number(iso[2]) - 1, day)).getUTCDate() !== day) return null;
  const zoned = iso[4] !== undefined || !/[Tt ]/.test(text) ? text : `${text}Z`;
  const at = Date.parse(zoned);
  return Number.isNaN(at) ? null : new Date(at).toISOString();
}

export interface LedgerFilter {
  status?: string;
  projectId?: string;
}

/** The statuses the ledger holds, each once. */
export async function readStatuses(db: Executor): Promise<string[]> {
  const rows = await db.all<{ status: string }>('SELECT DISTINCT status FROM agent_jobs ORDER BY status');
  return rows.map((r) => r.status);
}

/** The ledger's rows, oldest submission first, each with the follow-up messages its job was sent. */
export async function readLedger(db: Executor, filter: LedgerFilter = {}): Promise<LedgerRow[]> {
  const { where, params } = whereEquals({ status: filter.status, project_id: filter.projectId });
  const sql = `SELECT ${COLUMNS}, ${MESSAGES} FROM agent_jobs${where}
    ORDER BY agent_jobs.submitted_at NULLS LAST, agent_jobs.updated_at, prompt_key`; // the columns, not the second-cut text of the same names
  return (await db.all(sql, params)).map(toRow);
}

/** A ledger of POSTs: jobs by prompt key, or follow-up messages by message key. */
export interface PostRows {
  table: 'agent_jobs' | 'agent_messages';
  key: 'prompt_key' | 'message_key';
}
const JOB_ROWS: PostRows = { table: 'agent_jobs', key: 'prompt_key' };

/**
 * A row's POST mark, set just before an attempt goes out (after any wait for the budget),
 * only while the row is `pending` and this run's; counts the attempt. False if another run
 * took the row since, and then nothing may be sent.
 */
export function markPosting(store: Store, rows: PostRows, at: { projectId: string; key: string; runId: string; now: number }): Promise<boolean> {
  return store.claim(
    `UPDATE ${rows.table} SET post_started_at = $now::TIMESTAMPTZ, attempts = coalesce(attempts, 0) + 1, updated_at = $now::TIMESTAMPTZ
     WHERE project_id = $p AND ${rows.key} = $k AND run_id = $run AND status = 'pending'
     RETURNING ${rows.key}`,
    { p: at.projectId, k: at.key, now: ts(at.now), run: at.runId },
  );
}

/**
 * Clears a row's POST mark: an answer proved the attempt created nothing (429, 503). Only
 * while the row is this run's: another run that took it since may be posting it now.
 */
export async function clearPosting(store: Store, rows: PostRows, at: { projectId: string; key: string; runId: string; now: number }): Promise<void> {
  await store.run(
    `UPDATE ${rows.table} SET post_started_at = NULL, updated_at = $now::TIMESTAMPTZ WHERE project_id = $p AND ${rows.key} = $k AND run_id = $run`,
    { p: at.projectId, k: at.key, run: at.runId, now: ts(at.now) },
  );
}

/**
 * SQL that keeps a local outcome of `nothingCreated` (the run's attempts created nothing) to
 * rows still the run's: another run that took the row since may be posting it, and its mark
 * must stay (the next run would post the prompt again).
 */
export const NOTHING_CREATED_ONLY_IF_MINE = 'AND (NOT $nothing OR run_id = $run)';

export class JobLedger {
  constructor(
    private readonly store: Store,
    private readonly runId: string,
    /** The spool, where a created job the ledger could not take is kept (kept-jobs.ts). */
    private readonly spoolRoot?: string,
  ) {}

  /**
   * Records the answer of the POST that created a job. The answer is in the spool first, and
   * leaves it once the ledger has it: a run killed while it waits for the database (or one
   * that gives up on it, which throws) leaves it for the next batch to record.
   */
  recordCreated(projectId: string, promptKey: string, job: AgentJob, now: number): Promise<void> {
    return recordKeeping(this.spoolRoot, 'created', { projectId, key: promptKey, job, at: now }, () =>
      this.recordJob(projectId, promptKey, job, now, { submitted: true }),
    );
  }

  /**
   * Writes the created jobs an earlier batch kept in the spool into the ledger (a prompt whose
   * row has a job already keeps it), then removes them. Returns how many were recorded.
   */
  async recoverCreated(projectId: string): Promise<number> {
    const recorded = await recoverKept(this.spoolRoot, 'created', projectId, async (kept) => {
      const row = await this.get(projectId, kept.key);
      if (row === undefined || row.jobId !== null) return false;
      await this.recordJob(projectId, kept.key, kept.job, kept.at, { submitted: true });
      return true;
    });
    return recorded.length;
  }

  async get(projectId: string, promptKey: string): Promise<LedgerRow | undefined> {
    const rows = await this.store.read((db) => db.all(`${SELECT} WHERE project_id = $p AND prompt_key = $k`, { p: projectId, k: promptKey }));
    return rows[0] ? toRow(rows[0]) : undefined;
  }

  /** The statuses the ledger holds, each once. */
  statuses(): Promise<string[]> {
    return this.store.read((db) => readStatuses(db));
  }

  list(filter: LedgerFilter = {}): Promise<LedgerRow[]> {
    return this.store.read((db) => readLedger(db, filter));
  }

  /**
   * byKey as the next batch will find it: with the created jobs kept in the spool (that the
   * batch records first) on their rows, written nowhere. What a dry run decides from.
   */
  async byKeyWithKept(projectId: string): Promise<Map<string, LedgerRow>> {
    const rows = await this.byKey(projectId);
    if (this.spoolRoot === undefined) return rows;
    for (const { kept } of readKeptJobs(this.spoolRoot, 'created', projectId)) {
      const row = rows.get(kept.key);
      if (row === undefined || row.jobId !== null) continue;
      rows.set(kept.key, { ...row, jobId: kept.job.id, status: kept.job.status ?? 'active', postStarted: false });
    }
    return rows;
  }

  /** Every row of a project by prompt key: the one read a batch (or a dry run) needs. */
  async byKey(projectId: string): Promise<Map<string, LedgerRow>> {
    return this.store.read(async (db) => {
      const rows = (await db.all(`${SELECT} WHERE project_id = $p`, { p: projectId })).map((r) => ({ row: toRow(r), runId: r.run_id }));
      await markPostsInFlight(db, rows);
      return new Map(rows.map(({ row }) => [row.promptKey, row]));
    });
  }

  /**
   * The prompt's turn has come: `pending`, not yet posted (a prompt that then waits for the
   * hourly budget and is killed there is still provably not submitted), and this run's. Only
   * if the row is still as `seen` (absent, or not written since it was read): another batch of
   * the same prompts at once may have taken it meanwhile. Returns whether this run has it.
   */
  markPending(projectId: string, promptKey: string, prompt: string, sourceFile: string, now: number, seen?: LedgerRow): Promise<boolean> {
    const params = { p: projectId, k: promptKey, prompt, file: sourceFile, now: ts(now), run: this.runId };
    return seen === undefined
      ? this.store.claim(
          `INSERT INTO agent_jobs (project_id, prompt_key, prompt, status, source_file, attempts, polls, updated_at, run_id, post_started_at)
           VALUES ($p, $k, $prompt, 'pending', $file, 0, 0, $now::TIMESTAMPTZ, $run, NULL)
           ON CONFLICT (project_id, prompt_key) DO NOTHING RETURNING prompt_key`,
          params,
        )
      : this.store.claim(
          `UPDATE agent_jobs SET prompt = $prompt, status = 'pending', job_id = NULL, error = NULL, pr_link = NULL, flags = NULL,
             finished_at = NULL, source_file = $file, polls = 0, updated_at = $now::TIMESTAMPTZ, run_id = $run, post_started_at = NULL
           WHERE project_id = $p AND prompt_key = $k AND epoch_us(updated_at) IS NOT DISTINCT FROM $written
           RETURNING prompt_key`,
          { ...params, written: seen.writtenUs ?? null },
        );
  }

  /**
   * Just before a POST attempt goes out (each attempt: a retry after a refused connection
   * too): from here its outcome is unknown until the answer. Only while the prompt is still
   * this run's: returns false if another batch took it since `markPending`, and then nothing
   * may be sent.
   */
  markPosting(projectId: string, promptKey: string, now: number): Promise<boolean> {
    return markPosting(this.store, JOB_ROWS, { projectId, key: promptKey, runId: this.runId, now });
  }

  /** An attempt provably created nothing (429, 503): the prompt is not being posted any more. */
  clearPosting(projectId: string, promptKey: string, now: number): Promise<void> {
    return clearPosting(this.store, JOB_ROWS, { projectId, key: promptKey, runId: this.runId, now });
  }

  /**
   * The API answered with a job (after POST or GET): copy its fields. The status is kept
   * verbatim, known or not. A null prLink never erases a stored one; a prLink that is not a
   * URL is flagged instead of stored. The API's reason for a failure, if any, goes to `error`.
   */
  async recordJob(projectId: string, promptKey: string, job: AgentJob, now: number, opts: { submitted?: boolean; polled?: boolean } = {}): Promise<void> {
    const status = job.status ?? 'active';
    // A poll never takes a job that ended back to a status before its end, nor drops what its
    // end said (its reason, when it was archived): another run following the same job may
    // write a poll it made earlier after this one's last.
    const stale = `$polled AND NOT $terminal AND status IN (${TERMINAL_SQL})`;
    await this.store.run(
      // Nor does a poll change the job the prompt names (getAgentJob refuses an answer about another).
      `UPDATE agent_jobs SET
         job_id = CASE WHEN $polled THEN coalesce(job_id, $id) ELSE coalesce($id, job_id) END,
         status = CASE WHEN ${stale} THEN status ELSE $status END,
         model = coalesce($model, model),
         repository = coalesce($repo, repository), ref = coalesce($ref, ref), pr_link = coalesce($pr, pr_link),
         flags = CASE WHEN $badLink THEN 'pr_link_not_url' WHEN $pr IS NOT NULL THEN NULL ELSE flags END,
         created_at = coalesce($created::TIMESTAMPTZ, created_at),
         archived_at = CASE WHEN ${stale} THEN archived_at ELSE $archived::TIMESTAMPTZ END,
         submitted_at = CASE WHEN $submitted THEN $now::TIMESTAMPTZ ELSE submitted_at END,
         finished_at = CASE WHEN $terminal THEN coalesce(finished_at, $now::TIMESTAMPTZ)
                            WHEN $polled AND status IN (${TERMINAL_SQL}) THEN finished_at END,
         polls = polls + CASE WHEN $polled THEN 1 ELSE 0 END,
         error = CASE WHEN ${stale} THEN error ELSE $reason END, updated_at = $now::TIMESTAMPTZ, run_id = $run
       WHERE project_id = $p AND prompt_key = $k`,
      {
        p: projectId,
        k: promptKey,
        id: job.id,
        badLink: job.badPrLink !== null,
        reason: job.reason,
        status,
        model: job.model,
        repo: job.repository,
        ref: job.ref,
        pr: job.prLink,
        created: apiTime(job.createdAt),
        archived: apiTime(job.archivedAt),
        submitted: opts.submitted ?? false,
        polled: opts.polled ?? false,
        terminal: isTerminalStatus(status),
        now: ts(now),
        run: this.runId,
      },
    );
  }

  /**
   * A local outcome (`unknown`, `rejected`, `timed_out`) or an error kept beside the status.
   * A local status replaces only a local one (docpipe's: no job id, or `timed_out`) or
   * `active`: a status the API gave that docpipe does not know (`cancelled`, or a `pending` of
   * its own) is never overwritten, the outcome goes to `error` beside it.
   */
  async recordOutcome(
    projectId: string,
    promptKey: string,
    outcome: { status?: LocalStatus; error: string | null; submitted?: boolean; nothingCreated?: boolean },
    now: number,
    /** Only if the row is still as read (not written since): what was judged from it may be stale. */
    seen?: LedgerRow,
  ): Promise<void> {
    await this.store.run(
      `UPDATE agent_jobs SET
         status = CASE WHEN $status IS NULL THEN status
                       WHEN status IS NULL OR status IN ('active', 'timed_out') THEN $status
                       -- With a job id, the status is the API's (which may be named like a local one).
                       WHEN job_id IS NULL AND status IN (${LOCAL_STATUSES.map((s) => `'${s}'`).join(', ')}) THEN $status
                       ELSE status END,
         -- A job that ended keeps what the API said of its end (another run's deadline may pass after it).
         error = CASE WHEN job_id IS NOT NULL AND status IN (${TERMINAL_SQL}) THEN error ELSE $error END,
         submitted_at = CASE WHEN $submitted THEN $now::TIMESTAMPTZ ELSE submitted_at END,
         post_started_at = CASE WHEN $nothing THEN NULL ELSE post_started_at END,
         updated_at = $now::TIMESTAMPTZ, run_id = $run
       WHERE project_id = $p AND prompt_key = $k ${NOTHING_CREATED_ONLY_IF_MINE}${seen ? ' AND epoch_us(updated_at) IS NOT DISTINCT FROM $written' : ''}`,
      {
        p: projectId,
        k: promptKey,
        ...(seen ? { written: seen.writtenUs ?? null } : {}),
        nothing: outcome.nothingCreated ?? false,
        status: outcome.status ?? null,
        error: outcome.error,
        submitted: outcome.submitted ?? false,
        now: ts(now),
        run: this.runId,
      },
    );
  }
}
