/**
 * `docpipe export assistant --threads`: the transcript of every thread the loaded
 * conversations of the range reference, one request a thread, into assistant_messages. It
 * costs a request per thread, so it is off by default and runs after the conversations are
 * loaded. Like pages, every thread body is in the spool (<spool>/threads/<project>/<id>.jsonl)
 * before the next request, loaded from there in short writes, and removed once loaded: a
 * spent budget costs at most the request in flight, and the next run loads what the spool
 * holds before it asks for more. A thread already loaded is not fetched again unless refreshed.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { endpointPath } from '../api/analytics.js';
import { DataError } from '../core/errors.js';
import { stopReasonOf } from '../core/outcome.js';
import { sqlString } from '../load/sql-files.js';
import { encodeSegment, writeFileAtomic } from '../spool/spool.js';
/** Threads loaded per write. */
const LOAD_BATCH = 50;
const threadSchema = z.object({
    threadId: z.string(),
    createdAt: z.string(),
    messages: z.array(z.object({ id: z.string(), role: z.string(), content: z.string(), createdAt: z.string() })),
});
function threadsDir(spool, projectId) {
    return join(spool.root, 'threads', encodeSegment(projectId));
}
/** Thread bodies an earlier run received but did not load. */
function spooledThreads(spool, projects) {
    return projects.flatMap((projectId) => {
        let names;
        try {
            names = readdirSync(threadsDir(spool, projectId)).filter((n) => n.endsWith('.jsonl'));
        }
        catch {
            names = [];
        }
        return names.map((n) => ({ projectId, threadId: decodeURIComponent(n.slice(0, -'.jsonl'.length)), file: join(threadsDir(spool, projectId), n) }));
    });
}
/** Pure: the threads to fetch, in the order given, minus those loaded (unless refreshed) or spooled. */
export function planThreads(referenced, loaded, spooled, refresh) {
    return [...new Set(referenced)].filter((id) => !spooled.has(id) && (refresh || !loaded.has(id)));
}
/** Loads spooled thread bodies in the caller's transaction: each thread's messages replace its earlier copy. */
export async function loadThreads(tx, threads, runId) {
    if (threads.length === 0)
        return;
    const keys = threads.map((t) => `(${sqlString(t.projectId)}, ${sqlString(t.threadId)})`).join(', ');
    await tx.run(`DELETE FROM assistant_messages WHERE (project_id, thread_id) IN (${keys})`);
    const files = `[${threads.map((t) => sqlString(t.file)).join(', ')}]`;
    const map = threads.map((t) => `(${sqlString(t.file)}, ${sqlString(t.projectId)})`).join(', ');
    await tx.run(`INSERT INTO assistant_messages (project_id, thread_id, id, role, content, created_at, thread_created_at, run_id)
     SELECT m.project_id, j.body.threadId, j.msg.id, j.msg.role, j.msg.content,
            try_cast(j.msg.createdAt AS TIMESTAMPTZ), try_cast(j.body.createdAt AS TIMESTAMPTZ), ${sqlString(runId)}
       FROM (SELECT body, unnest(body.messages) AS msg, filename
               FROM read_json(${files}, format = 'newline_delimited', filename = true,
                              columns = {body: 'STRUCT(threadId VARCHAR, createdAt VARCHAR, messages STRUCT(id VARCHAR, role VARCHAR, content VARCHAR, createdAt VARCHAR)[])'})) j
       JOIN (VALUES ${map}) m(filename, project_id) ON m.filename = j.filename
    QUALIFY row_number() OVER (PARTITION BY m.project_id, j.body.threadId, j.msg.id) = 1`);
}
const message = (error) => (error instanceof Error ? error.message : String(error));
export async function runThreads(options) {
    const { store, spool, client } = options;
    const summary = {
        threadsPlanned: 0,
        threadsLoaded: 0,
        threadsFromSpool: 0,
        threadsFailed: 0,
        threadsLeft: 0,
        stopped: null,
        stopMessage: null,
    };
    const pending = spooledThreads(spool, options.projects);
    summary.threadsFromSpool = pending.length;
    const flush = async () => {
        if (pending.length === 0)
            return;
        const batch = pending.splice(0, pending.length);
        await store.write((tx) => loadThreads(tx, batch, options.runId));
        for (const t of batch)
            rmSync(t.file, { force: true });
        summary.threadsLoaded += batch.length;
    };
    const plan = await store.read(async (db) => {
        const all = [];
        for (const projectId of options.projects) {
            const rows = await db.all(`SELECT c.thread_id, bool_or(m.thread_id IS NOT NULL) AS loaded
           FROM assistant_conversations c
           LEFT JOIN (SELECT DISTINCT project_id, thread_id FROM assistant_messages) m
             ON m.project_id = c.project_id AND m.thread_id = c.thread_id
          WHERE c.project_id = $project AND c.thread_id IS NOT NULL
            AND c.window_start >= $start::DATE AND c.window_end <= $end::DATE
          GROUP BY c.thread_id ORDER BY max(c."timestamp") DESC, c.thread_id`, { project: projectId, start: options.range.start, end: options.range.end });
            const loaded = new Set(rows.filter((r) => r.loaded).map((r) => r.thread_id));
            const spooled = new Set(pending.filter((p) => p.projectId === projectId).map((p) => p.threadId));
            all.push(...planThreads(rows.map((r) => r.thread_id), loaded, spooled, options.refresh ?? false).map((threadId) => ({ projectId, threadId })));
        }
        return all;
    });
    summary.threadsPlanned = plan.length + summary.threadsFromSpool;
    let done = 0;
    try {
        for (const { projectId, threadId } of plan) {
            if (options.signal?.aborted) {
                summary.stopped = 'interrupted';
                summary.stopMessage = 'interrupted';
                break;
            }
            const path = `${endpointPath('assistant', projectId)}/threads/${encodeURIComponent(threadId)}`;
            try {
                const body = await client.request({
                    method: 'GET',
                    path,
                    parse: (json, text) => {
                        const parsed = threadSchema.safeParse(json);
                        if (!parsed.success)
                            throw new DataError(`GET ${path} returned an unexpected body`);
                        return text;
                    },
                    ...(options.signal ? { signal: options.signal } : {}),
                });
                // On disk before the next request.
                const dir = threadsDir(spool, projectId);
                mkdirSync(dir, { recursive: true });
                const file = join(dir, `${encodeSegment(threadId)}.jsonl`);
                writeFileAtomic(file, `{"body":${JSON.stringify(JSON.parse(body))}}\n`);
                pending.push({ projectId, threadId, file });
                if (pending.length >= LOAD_BATCH)
                    await flush();
            }
            catch (error) {
                const reason = stopReasonOf(error);
                if (reason !== null) {
                    summary.stopped = reason;
                    summary.stopMessage = message(error);
                    break;
                }
                summary.threadsFailed++;
            }
            done++;
        }
    }
    finally {
        await flush();
    }
    summary.threadsLeft = plan.length - done;
    return summary;
}
//# sourceMappingURL=run-threads.js.map