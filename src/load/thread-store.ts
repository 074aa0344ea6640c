/**
 * Assistant thread bodies loaded from the spool into assistant_messages and assistant_threads
 * (../spool/thread-spool.ts keeps them until then).
 */
import type { Executor } from './database.js';
import { sqlString } from './sql-files.js';
import type { Store } from './store.js';
import { scanThreads, threadProjects, type SpooledThread } from '../spool/thread-spool.js';
import type { Spool } from '../spool/spool.js';
import { rmSync } from 'node:fs';

/**
 * Loads spooled thread bodies in the caller's transaction: each thread's messages replace its
 * earlier copy, and its assistant_threads row says it was fetched (a thread with no message
 * too, and one the API did not have, `notFound`: neither is asked for again; a `notFound`
 * answer leaves a stored transcript and its row as they are). Messages are filed under the thread id asked for, as the
 * conversations name it, each with its place in the thread as the API listed it (`position`).
 */
export async function loadThreads(tx: Executor, threads: readonly SpooledThread[], runId: string): Promise<void> {
  if (threads.length === 0) return;
  const files = `[${threads.map((t) => sqlString(t.file)).join(', ')}]`;
  const map = threads.map((t) => `(${sqlString(t.file)}, ${sqlString(t.projectId)}, ${sqlString(t.threadId)})`).join(', ');
  // When the body was received (a body spooled by docpipe before 0.3.0 has no time: now).
  const bodies = `SELECT m.project_id, m.thread_id, j.body, coalesce(j.notFound, false) AS not_found,
                         coalesce(try_cast(j.receivedAt AS TIMESTAMPTZ), now()) AS received_at
       FROM read_json(${files}, format = 'newline_delimited', filename = true,
                      columns = {body: 'STRUCT(threadId VARCHAR, createdAt VARCHAR, messages STRUCT(id VARCHAR, role VARCHAR, content VARCHAR, createdAt VARCHAR)[])',
                                 notFound: 'BOOLEAN', receivedAt: 'VARCHAR'}) j
       JOIN (VALUES ${map}) m(filename, project_id, thread_id) ON m.filename = j.filename`;
  // A body replaces the thread's stored transcript; a "not found" answer never does (nor its
  // row): run-threads asks it of a thread with messages only when another run loaded them
  // after this run's plan, and the transcript stands.
  await tx.run(
    `DELETE FROM assistant_messages WHERE (project_id, thread_id) IN (SELECT project_id, thread_id FROM (${bodies}) WHERE NOT not_found)`,
  );
  await tx.run(
    `INSERT INTO assistant_messages (project_id, thread_id, id, role, content, created_at, thread_created_at, run_id, position)
     SELECT project_id, thread_id, msg.id, msg.role, msg.content,
            try_cast(msg.createdAt AS TIMESTAMPTZ), try_cast(body.createdAt AS TIMESTAMPTZ), ${sqlString(runId)}, position
       FROM (SELECT project_id, thread_id, body, unnest(body.messages) AS msg, generate_subscripts(body.messages, 1) AS position FROM (${bodies}))
    -- A message listed twice keeps its first place.
    QUALIFY row_number() OVER (PARTITION BY project_id, thread_id, msg.id ORDER BY position) = 1`,
  );
  await tx.run(
    `INSERT OR REPLACE INTO assistant_threads (project_id, thread_id, created_at, message_count, fetched_at, run_id, not_found)
     SELECT project_id, thread_id, try_cast(body.createdAt AS TIMESTAMPTZ),
            (SELECT count(DISTINCT x.id) FROM unnest(body.messages) u(x)), received_at, ${sqlString(runId)}, not_found
       FROM (${bodies}) b
      WHERE NOT (not_found AND EXISTS (SELECT 1 FROM assistant_messages a WHERE a.project_id = b.project_id AND a.thread_id = b.thread_id))`,
  );
}

/**
 * Loads the thread bodies an earlier run received and no live run holds (doctor --fix), in
 * one write, without a request; returns how many.
 */
export async function loadSpooledThreads(store: Store, spool: Spool, runId: string): Promise<number> {
  const { mine } = scanThreads(spool, threadProjects(spool));
  try {
    const batch = mine.filter((t) => t.claim.stillHeld());
    if (batch.length === 0) return 0;
    await store.write((tx) => loadThreads(tx, batch, runId));
    for (const t of batch) {
      rmSync(t.file, { force: true });
      t.claim.remove();
    }
    return batch.length;
  } finally {
    for (const t of mine) t.claim.release();
  }
}
