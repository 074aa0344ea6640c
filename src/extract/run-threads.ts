/**
 * `docpipe export assistant --threads`: the transcript of every thread the loaded
 * conversations of the range reference, one request a thread, into assistant_messages. It
 * costs a request per thread, so it is off by default and runs after the conversations are
 * loaded. Like pages, every thread body is in the spool (<spool>/threads/<project>/<id>.jsonl)
 * before the next request, loaded from there in short writes, and removed once loaded: a
 * spent budget costs at most the request in flight, and the next run loads what the spool
 * holds before it asks for more. A thread already loaded is not fetched again unless refreshed.
 *
 * A transcript can grow while its conversation's day goes on, so the threads of a conversation
 * window that has not ended wait for a run after its end (a nightly run at 02:00 has little of
 * the new day anyway), and a transcript fetched before its window ended (by an earlier
 * release) is fetched once more after it.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { HttpClient } from '../api/http-client.js';
import { endpointPath } from '../api/analytics.js';
import { FailedInRow } from '../api/failure-breaker.js';
import type { Window } from '../core/domain.js';
import { DataError, HttpError } from '../core/errors.js';
import { replacesStop, stopReasonOf, type StopReason } from '../core/outcome.js';
import { conversationThreadSql } from '../load/endpoint-store.js';
import { otherRunsLive } from '../load/runs.js';
import type { Store } from '../load/store.js';
import { loadThreads } from '../load/thread-store.js';
import { otherRunsJournalling } from '../spool/request-journal.js';
import { encodeSegment, wellFormedJson, writeFileAtomic, type Spool, type SpoolClaim } from '../spool/spool.js';
import { claimOf, scanThreads, threadsDir, type SpooledThread, type ThreadScan } from '../spool/thread-spool.js';
import { makeFolders } from '../core/files.js';

const threadKey = (projectId: string, threadId: string): string => `${projectId}\u0000${threadId}`;

/** Threads loaded per write. */
const LOAD_BATCH = 50;
/** Days after which a thread the API answered 404 is asked for again. */
const NOT_FOUND_RETRY_DAYS = 7;

export interface ThreadsOptions {
  store: Store;
  spool: Spool;
  client: HttpClient;
  runId: string;
  projects: readonly string[];
  /** The conversations whose threads are fetched: those of these windows. */
  range: Window;
  /** Fetch threads that are loaded already. @default false */
  refresh?: boolean;
  /** The run's clock: when a body is received, and which conversation windows have ended. */
  now: () => number;
  signal?: AbortSignal;
  /** Told of each thread that failed (and was not recorded), with why. */
  onThreadFailed?: (event: { projectId: string; threadId: string; error: string }) => void;
}

export interface ThreadsSummary {
  threadsPlanned: number;
  threadsLoaded: number;
  threadsFromSpool: number;
  threadsFailed: number;
  /** Left to another run at work (it fetches or fetched them): planned = loaded + failed + skipped + left. */
  threadsSkipped: number;
  /** Not planned: their conversation's window has not ended (its transcript may still grow); a later run fetches them. */
  threadsWaiting: number;
  threadsLeft: number;
  stopped: StopReason | null;
  stopMessage: string | null;
}

const threadSchema = z.object({
  threadId: z.string(),
  createdAt: z.string(),
  messages: z.array(z.object({ id: z.string(), role: z.string(), content: z.string(), createdAt: z.string() })),
});

/** Pure: the threads to fetch, in the order given, minus those loaded (unless refreshed) or spooled. */
export function planThreads(referenced: readonly string[], loaded: ReadonlySet<string>, spooled: ReadonlySet<string>, refresh: boolean): string[] {
  // A blank id names no thread: its request would go to the collection (`threads/`) and fail, every run.
  return [...new Set(referenced)].filter((id) => id.trim() !== '' && !spooled.has(id) && (refresh || !loaded.has(id)));
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export async function runThreads(options: ThreadsOptions): Promise<ThreadsSummary> {
  const summary: ThreadsSummary = {
    threadsPlanned: 0,
    threadsLoaded: 0,
    threadsFromSpool: 0,
    threadsFailed: 0,
    threadsSkipped: 0,
    threadsWaiting: 0,
    threadsLeft: 0,
    stopped: null,
    stopMessage: null,
  };
  const scan = scanThreads(options.spool, options.projects);
  // Claims this run holds until the thread is loaded, or lets go of at its end.
  const claims: SpoolClaim[] = scan.mine.map((t) => t.claim);
  try {
    await fetchThreads(options, summary, scan, claims);
  } catch (error) {
    // The file stayed held past the lock wait, or Ctrl-C (SIGTERM) ended the wait for it: the
    // bodies received stay in the spool, and the run stops as a held file or a stop stops any
    // other (exit 75 or 130, with its summary).
    const reason = stopReasonOf(error);
    if (reason !== 'locked' && reason !== 'interrupted') throw error;
    if (replacesStop(summary.stopped, reason)) {
      summary.stopped = reason;
      summary.stopMessage = message(error);
    }
  } finally {
    // Bodies not loaded stay in the spool, free for the next run.
    for (const claim of claims) claim.release();
  }
  return summary;
}

async function fetchThreads(options: ThreadsOptions, summary: ThreadsSummary, scan: ThreadScan, claims: SpoolClaim[]): Promise<void> {
  const { store, spool, client } = options;
  const pending: SpooledThread[] = scan.mine;
  summary.threadsFromSpool = pending.length;
  const flush = async (): Promise<void> => {
    // A thread another run took over while this one was stopped is that run's to load.
    const waiting = pending.splice(0, pending.length);
    const batch = waiting.filter((t) => t.claim.stillHeld());
    summary.threadsSkipped += waiting.length - batch.length;
    if (batch.length === 0) return;
    await store.write((tx) => loadThreads(tx, batch, options.runId));
    for (const t of batch) {
      rmSync(t.file, { force: true });
      t.claim.remove();
    }
    summary.threadsLoaded += batch.length;
  };

  let othersRunning = false;
  // The run whose copy of each loaded thread the plan saw, and the threads stored with messages.
  const loadedBy = new Map<string, string>();
  const withMessages = new Set<string>();
  const now = new Date(options.now()).toISOString();
  const plan = await store.read(async (db) => {
    othersRunning = await otherRunsLive(db, options.runId);
    const all: { projectId: string; threadId: string }[] = [];
    for (const projectId of options.projects) {
      // A thread counts as loaded once fetched after the last window its conversation rows
      // are in had ended. One the API did not have (404) counts as loaded for a week, then is
      // asked again (it may not have been available yet); its messages, if it had any, are
      // never lost. A thread whose conversation window has not ended waits.
      const rows = await db.all<{ thread_id: string; loaded: boolean; waiting: boolean; run_id: string | null; messages: boolean }>(
        `SELECT ${conversationThreadSql('c')} AS thread_id,
                bool_or(t.thread_id IS NOT NULL AND NOT (coalesce(t.not_found, false) AND t.fetched_at < $now::TIMESTAMPTZ - INTERVAL ${NOT_FOUND_RETRY_DAYS} DAY))
                  -- (a fetch time unknown, from before assistant_threads, is taken as after)
                  AND coalesce(max(t.fetched_at) >= max(c.window_end)::TIMESTAMPTZ, true) AS loaded,
                max(c.window_end)::TIMESTAMPTZ > $now::TIMESTAMPTZ AS waiting,
                max(t.run_id) AS run_id, bool_or(coalesce(t.message_count, 0) > 0) AS messages
           FROM assistant_conversations c
           LEFT JOIN assistant_threads t ON t.project_id = c.project_id AND t.thread_id = ${conversationThreadSql('c')}
          WHERE c.project_id = $project
            AND c.window_start >= $start::DATE AND c.window_end <= $end::DATE
          GROUP BY 1 ORDER BY max(c."timestamp") DESC, 1`,
        { project: projectId, start: options.range.start, end: options.range.end, now },
      );
      const waiting = new Set(rows.filter((r) => r.waiting).map((r) => r.thread_id));
      summary.threadsWaiting += waiting.size;
      const loaded = new Set(rows.filter((r) => r.loaded).map((r) => r.thread_id));
      for (const r of rows) if (r.run_id !== null) loadedBy.set(threadKey(projectId, r.thread_id), r.run_id);
      for (const r of rows) if (r.messages) withMessages.add(threadKey(projectId, r.thread_id));
      // A body in the spool is loaded by whichever run holds it (this one, or another still going).
      const spooled = scan.spooled.get(projectId) ?? new Set<string>();
      const referenced = rows.map((r) => r.thread_id).filter((id) => !waiting.has(id));
      all.push(...planThreads(referenced, loaded, spooled, options.refresh ?? false).map((threadId) => ({ projectId, threadId })));
    }
    return all;
  });
  summary.threadsPlanned = plan.length + summary.threadsFromSpool;

  // Another run is going (its record in runs, its request journal, a thread it holds): a
  // thread it loaded since this run's plan is not fetched again.
  let overlapping = scan.othersActive || othersRunning;
  // Loaded by another run since the plan: a copy written by a run other than the one the plan
  // saw (and not this one), with or without --refresh.
  const loadedSincePlan = async (projectId: string, threadId: string): Promise<boolean> => {
    const rows = await store.read((db) =>
      db.all<{ run_id: string | null }>(`SELECT max(run_id) AS run_id FROM assistant_threads WHERE project_id = $p AND thread_id = $t`, { p: projectId, t: threadId }),
    );
    const now = rows[0]?.run_id ?? null;
    return now !== null && now !== options.runId && now !== loadedBy.get(threadKey(projectId, threadId));
  };

  /** A spooled body's receive time, by the run's clock (assistant_threads.fetched_at). */
  const receivedAt = (): string => `,"receivedAt":${JSON.stringify(new Date(options.now()).toISOString())}`;
  let done = 0;
  // Every thread failing alike (a changed schema) stops the run.
  const failedInRow = new FailedInRow('threads');
  /** Fetches the planned threads in turn, each into the spool, loading them in batches. */
  const fetchAll = async (): Promise<void> => {
    for (const { projectId, threadId } of plan) {
      if (options.signal?.aborted) {
        summary.stopped = 'interrupted';
        summary.stopMessage = 'interrupted';
        break;
      }
      // A run journalling now, or one that has been at work since this run began (it may
      // have ended since, having loaded windows after this run's plan).
      overlapping ||= store.journal?.othersAtWorkSinceStart() ?? otherRunsJournalling(spool.requestsDir, options.runId);
      const dir = threadsDir(spool, projectId);
      const file = join(dir, `${encodeSegment(threadId)}.jsonl`);
      const claim = claimOf(spool, file);
      let took: boolean;
      try {
        makeFolders(dir);
        took = claim.take();
      } catch (error) {
        // The spool cannot be written (a full disk, no file handles left): every later thread
        // would fail the same way. The run stops with its summary.
        summary.stopped = 'fatal';
        summary.stopMessage = `cannot claim thread ${threadId} in the spool: ${message(error)}`;
        break;
      }
      if (!took) {
        // Another run is fetching it, and loads it.
        overlapping = true;
        summary.threadsSkipped++;
        done++;
        continue;
      }
      claims.push(claim);
      const path = `${endpointPath('assistant', projectId)}/threads/${encodeURIComponent(threadId)}`;
      try {
        if (overlapping && (await loadedSincePlan(projectId, threadId))) {
          claim.remove();
          summary.threadsSkipped++;
          done++;
          continue;
        }
        if (existsSync(file)) {
          // Its body came after this run's scan, from a run that is gone (this run took its
          // claim over): loaded from the spool, not fetched again (bodies are written whole).
          pending.push({ projectId, threadId, file, claim });
          summary.threadsFromSpool++;
          if (pending.length >= LOAD_BATCH) await flush();
          done++;
          continue;
        }
        const body = await client
          .request({
            method: 'GET',
            path,
            parse: (json, text) => {
              const parsed = threadSchema.safeParse(json);
              if (!parsed.success) throw new DataError(`GET ${path} returned an unexpected body`);
              return `{"body":${wellFormedJson(text)}${receivedAt()}}\n`;
            },
            ...(options.signal ? { signal: options.signal } : {}),
          })
          .catch((error: unknown) => {
            // A thread the API does not have (its documented 404, or 400 'Invalid thread ID':
            // neither changes by asking again): recorded as not found, so that it is not asked
            // for on every run. One stored with messages keeps them (a --refresh answered 404):
            // that is a failure, named, not an empty thread.
            const noSuchThread = error instanceof HttpError && (error.status === 404 || error.status === 400);
            if (noSuchThread && !withMessages.has(threadKey(projectId, threadId))) {
              return `{"body":{"messages":[]},"notFound":true${receivedAt()}}\n`;
            }
            throw error;
          });
        if (!claim.stillHeld()) {
          // Taken over while this run was stopped: the other run fetches and loads it.
          overlapping = true;
          summary.threadsSkipped++;
          done++;
          continue;
        }
        // On disk before the next request.
        writeFileAtomic(file, body);
        failedInRow.succeeded();
        pending.push({ projectId, threadId, file, claim });
        if (pending.length >= LOAD_BATCH) await flush();
      } catch (error) {
        if (!existsSync(file)) claim.remove(); // nothing of it in the spool
        const reason = stopReasonOf(error);
        if (reason !== null) {
          summary.stopped = reason;
          summary.stopMessage = message(error);
          break;
        }
        summary.threadsFailed++;
        options.onThreadFailed?.({ projectId, threadId, error: message(error) });
        const failing = failedInRow.failed(message(error));
        if (failing) {
          summary.stopped = 'failing';
          summary.stopMessage = failing.message;
          done++;
          break;
        }
      }
      done++;
    }
  };

  try {
    await fetchAll();
  } finally {
    summary.threadsLeft = plan.length - done;
    await flush();
  }
}
