/** Loading spooled assistant thread bodies into a real DuckDB file. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/load/database.js';
import { loadThreads } from '../../src/load/thread-store.js';
import type { SpooledThread } from '../../src/spool/thread-spool.js';

const THREAD = '01HZZZZZZZZZZZZZZZZZZZZZZA';

describe('loadThreads', () => {
  let dir: string;
  let db: Database;
  let n = 0;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-thread-load-'));
    db = await Database.open(join(dir, 'test.duckdb'));
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A spooled body of the thread, as run-threads writes it. */
  function spooled(line: unknown): SpooledThread {
    const file = join(dir, `thread-${++n}.json`);
    writeFileSync(file, `${JSON.stringify(line)}\n`);
    return { projectId: 'docs', threadId: THREAD, file } as SpooledThread;
  }
  const transcript = { body: { threadId: THREAD, createdAt: '2026-03-02T10:00:00Z', messages: [
    { id: 'm1', role: 'user', content: 'How do I set up SSO?', createdAt: '2026-03-02T10:00:00Z' },
    { id: 'm2', role: 'assistant', content: 'See the SSO guide.', createdAt: '2026-03-02T10:00:05Z' },
  ] }, receivedAt: '2026-03-03T06:00:00Z' };
  const threads = () => db.all<{ not_found: boolean; n: number }>(`SELECT not_found, message_count::INTEGER AS n FROM assistant_threads`);
  const messages = () => db.all<{ id: string }>(`SELECT id FROM assistant_messages ORDER BY position`);

  it('a body replaces the stored transcript of its thread', async () => {
    await db.transaction((tx) => loadThreads(tx, [spooled(transcript)], 'run-1'));
    const shorter = { ...transcript, body: { ...transcript.body, messages: transcript.body.messages.slice(0, 1) } };
    await db.transaction((tx) => loadThreads(tx, [spooled(shorter)], 'run-2'));
    expect(await messages()).toEqual([{ id: 'm1' }]);
    expect(await threads()).toEqual([{ not_found: false, n: 1 }]);
  });

  it('a not-found answer never replaces a stored transcript (another run loaded it after this run planned)', async () => {
    await db.transaction((tx) => loadThreads(tx, [spooled(transcript)], 'run-1'));
    await db.transaction((tx) => loadThreads(tx, [spooled({ body: { messages: [] }, notFound: true, receivedAt: '2026-03-04T06:00:00Z' })], 'run-2'));
    expect(await messages()).toEqual([{ id: 'm1' }, { id: 'm2' }]);
    expect(await threads()).toEqual([{ not_found: false, n: 2 }]);
  });

  it('a not-found answer for a thread with no transcript is recorded as such', async () => {
    await db.transaction((tx) => loadThreads(tx, [spooled({ body: { messages: [] }, notFound: true, receivedAt: '2026-03-04T06:00:00Z' })], 'run-1'));
    expect(await threads()).toEqual([{ not_found: true, n: 0 }]);
    expect(await messages()).toEqual([]);
  });
});
