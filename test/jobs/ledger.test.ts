import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentJob } from '../../src/api/schemas.js';
import { Database } from '../../src/load/database.js';
import { Store } from '../../src/load/store.js';
import { apiTime, JobLedger } from '../../src/jobs/ledger.js';
import { MessageLedger } from '../../src/jobs/message-ledger.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const KEYS = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];

function job(id: string, status: string): AgentJob {
  return { id, status, model: null, repository: null, ref: null, prLink: null, badPrLink: null, createdAt: null, archivedAt: null, reason: null };
}

/** The ledger over a real file, counting the short writes (opens) it makes. */
function countingLedger(path: string): { ledger: JobLedger; store: Store; writes: () => number } {
  const store = new Store(path);
  let writes = 0;
  const write = store.write.bind(store);
  store.write = (work) => {
    writes++;
    return write(work);
  };
  return { ledger: new JobLedger(store, 'run-1'), store, writes: () => writes };
}

/** Each test of the block gets a new docpipe database in a temp folder, removed after it. */
function freshDatabase(use: (path: string) => void): void {
  let dir = '';
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-ledger-'));
    const path = join(dir, 'jobs.duckdb');
    await Database.with(path, {}, () => Promise.resolve());
    use(path);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
}

describe('JobLedger: writes that meet share a short write', () => {
  let path = '';
  freshDatabase((p) => (path = p));

  const rows = (): Promise<{ prompt_key: string; status: string; polls: number; job_id: string | null }[]> =>
    Database.with(path, { readOnly: true }, (db) =>
      db.all(`SELECT prompt_key, status, polls::INTEGER AS polls, job_id FROM agent_jobs ORDER BY prompt_key`),
    );

  it('polls of six jobs that answer at once are committed in two writes, each call after its own commit', async () => {
    const { ledger, writes } = countingLedger(path);
    for (const k of KEYS) await ledger.markPending('docs', k, `Fix ${k}`, 'prompts.txt', NOW);
    expect(writes()).toBe(KEYS.length); // one after another: one write each

    const before = writes();
    const committed: string[] = [];
    await Promise.all(
      KEYS.map((k, i) =>
        ledger.recordJob('docs', k, job(`job-${i}`, i % 2 === 0 ? 'completed' : 'active'), NOW + 1000, { polled: true }).then(() => committed.push(k)),
      ),
    );
    // The first goes alone; the five that queued behind it go in together.
    expect(writes() - before).toBe(2);
    expect(committed.sort()).toEqual(KEYS);
    expect(await rows()).toEqual(
      KEYS.map((k, i) => ({ prompt_key: k, status: i % 2 === 0 ? 'completed' : 'active', polls: 1, job_id: `job-${i}` })),
    );
  });

  it('a statement that fails does not fail the others it shared a write with', async () => {
    const { ledger, store, writes } = countingLedger(path);
    await ledger.markPending('docs', 'k1', 'Fix k1', 'prompts.txt', NOW);
    await ledger.markPending('docs', 'k2', 'Fix k2', 'prompts.txt', NOW);
    const first = ledger.recordJob('docs', 'k2', job('job-2', 'active'), NOW + 1000, { polled: true });
    // Both queue behind `first` and share its next write, which fails; each is then tried alone.
    const failing = store.run("SELECT error('boom')", {});
    const polled = ledger.recordJob('docs', 'k1', job('job-1', 'active'), NOW + 1000, { polled: true });
    await first;
    await expect(failing).rejects.toThrow(/boom/);
    await expect(polled).resolves.toBeUndefined();
    expect(await rows()).toEqual([
      { prompt_key: 'k1', status: 'active', polls: 1, job_id: 'job-1' },
      { prompt_key: 'k2', status: 'active', polls: 1, job_id: 'job-2' },
    ]);
    // k1, k2, `first`, the shared write that failed, then the two alone.
    expect(writes()).toBe(6);
  });
});

describe('JobLedger: the API\'s timestamps', () => {
  let path = '';
  freshDatabase((p) => (path = p));

  it.each([
    ['2026-10-31T06:00:00Z', '2026-10-31T06:00:00.000Z'],
    ['2026-10-31T08:00:00.5+02:00', '2026-10-31T06:00:00.500Z'],
    // No zone: UTC, whatever the machine's zone.
    ['2026-10-31T06:00:00', '2026-10-31T06:00:00.000Z'],
    ['2026-10-31', '2026-10-31T00:00:00.000Z'],
    // Not ISO 8601 (JavaScript reads each as some date), or a year DuckDB cannot hold: dropped.
    ['Oct 31', null],
    ['1', null],
    ['+010000-01-01T00:00:00Z', null],
    ['2026-13-01T00:00:00Z', null],
    ['2024-02-30T00:00:00Z', null],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
  ])('%s is stored as %s', (sent, stored) => {
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      expect(apiTime(sent)).toBe(stored);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('a job whose timestamps cannot be stored is recorded all the same, those times empty', async () => {
    const ledger = new JobLedger(new Store(path), 'run-1');
    await ledger.markPending('docs', 'k1', 'Fix k1', 'prompts.txt', NOW);
    const odd = { ...job('job-1', 'completed'), createdAt: '+010000-01-01T00:00:00Z', archivedAt: 'Oct 31' };
    await ledger.recordJob('docs', 'k1', odd, NOW + 1000, { polled: true });
    const rows = await Database.with(path, { readOnly: true }, (db) => db.all(`SELECT status, created_at, archived_at FROM agent_jobs`));
    expect(rows).toEqual([{ status: 'completed', created_at: null, archived_at: null }]);
  });
});

describe('JobLedger: a created job the database could not take', () => {
  let path = '';
  freshDatabase((p) => (path = p));

  it('is kept in the spool and recorded by the next batch, unless the prompt has a job by then', async () => {
    const spool = `${path}.spool`;
    const setup = new JobLedger(new Store(path), 'run-0', spool);
    for (const k of ['k1', 'k2']) await setup.markPending('docs', k, `Fix ${k}`, 'prompts.txt', NOW);
    // The file held by another process past the lock wait: the write fails, the answers go to the spool.
    const busy = new Store(path);
    busy.run = () => Promise.reject(new Error('database held past the lock wait'));
    const held = new JobLedger(busy, 'run-1', spool);
    for (const [k, id] of [['k1', 'job_1'], ['k2', 'job_2']] as const) {
      await expect(held.recordCreated('docs', k, job(id, 'active'), NOW + 1)).rejects.toThrow('database held past the lock wait');
    }
    // k2 got its job meanwhile (another way): its kept answer is dropped, not written over it.
    await setup.recordJob('docs', 'k2', job('job_2', 'succeeded'), NOW + 2, { submitted: true });
    const next = new JobLedger(new Store(path), 'run-2', spool);
    expect(await next.recoverCreated('docs')).toBe(1);
    expect(await next.recoverCreated('docs')).toBe(0);
    const rows = await next.byKey('docs');
    expect([rows.get('k1')?.jobId, rows.get('k1')?.status]).toEqual(['job_1', 'active']);
    expect([rows.get('k2')?.jobId, rows.get('k2')?.status]).toEqual(['job_2', 'succeeded']);
  });
});

describe('MessageLedger: the answer to a message the database could not take', () => {
  let path = '';
  freshDatabase((p) => (path = p));

  it('is kept in the spool and recorded by the next run, unless the message has moved on by then', async () => {
    const spool = `${path}.spool`;
    const setup = new MessageLedger(new Store(path), 'run-0', spool);
    for (const key of ['m1', 'm2']) {
      await setup.markPending('docs', { key, jobId: `job_${key}`, promptKey: null, prompt: `Also ${key}` }, 'messages.csv', NOW);
      expect(await setup.markPosting('docs', key, NOW)).toBe(true);
    }
    // The file held by another process past the lock wait: the write fails, the answers go to the spool.
    const busy = new Store(path);
    busy.run = () => Promise.reject(new Error('database held past the lock wait'));
    const held = new MessageLedger(busy, 'run-1', spool);
    for (const key of ['m1', 'm2']) {
      await expect(held.recordSent('docs', key, job(`job_${key}`, 'active'), NOW + 1)).rejects.toThrow('database held past the lock wait');
    }
    // m2 was refused meanwhile (another way): its kept answer is dropped, not written over it.
    await setup.recordOutcome('docs', 'm2', { status: 'rejected', error: 'no', nothingCreated: true }, NOW + 2);
    const next = new MessageLedger(new Store(path), 'run-2', spool);
    // What a dry run sees before the next run records it: m1 sent, its job to follow.
    const kept = next.keptAnswers('docs');
    expect([...kept.keys()].sort()).toEqual(['m1', 'm2']);
    expect(await next.getWithKept('docs', 'm1', kept)).toMatchObject({ status: 'sent', jobStatus: 'active', postStarted: false });
    expect(await next.getWithKept('docs', 'm2', kept)).toMatchObject({ status: 'rejected' });
    expect((await next.recoverSent('docs')).map((k) => k.key)).toEqual(['m1']);
    expect(await next.recoverSent('docs')).toEqual([]);
    expect(await next.get('docs', 'm1')).toMatchObject({ status: 'sent', statusAfter: 'active', jobStatus: 'active' });
    expect((await next.get('docs', 'm2'))?.status).toBe('rejected');
  });
});

describe('JobLedger: two runs of the same prompts claim each prompt once', () => {
  let path = '';
  freshDatabase((p) => (path = p));

  it('a new prompt: the first run to mark it has it; the other may not mark it, nor post it', async () => {
    const a = new JobLedger(new Store(path), 'run-a');
    const b = new JobLedger(new Store(path), 'run-b');
    // Both read the ledger before either wrote: the prompt is new to both.
    expect(await a.get('docs', 'k1')).toBeUndefined();
    expect(await a.markPending('docs', 'k1', 'Fix k1', 'prompts.txt', NOW)).toBe(true);
    expect(await b.markPending('docs', 'k1', 'Fix k1', 'prompts.txt', NOW)).toBe(false);
    expect(await b.markPosting('docs', 'k1', NOW)).toBe(false);
    expect(await a.markPosting('docs', 'k1', NOW)).toBe(true);
    // Each attempt marks it (a retry after a refused connection too), the other run still not.
    expect(await a.markPosting('docs', 'k1', NOW + 1)).toBe(true);
    expect(await b.markPosting('docs', 'k1', NOW + 1)).toBe(false);
  });

  it('a prompt read as not yet submitted: only a claim on the row as it was read goes through', async () => {
    const earlier = new JobLedger(new Store(path), 'run-0');
    await earlier.markPending('docs', 'k1', 'Fix k1', 'prompts.txt', NOW);
    const a = new JobLedger(new Store(path), 'run-a');
    const b = new JobLedger(new Store(path), 'run-b');
    const seenByA = await a.get('docs', 'k1');
    const seenByB = await b.get('docs', 'k1');
    expect(seenByA?.writtenUs).toBe(Date.parse('2026-03-01T12:00:00Z') * 1000);
    expect(await a.markPending('docs', 'k1', 'Fix k1', 'prompts.txt', NOW + 1, seenByA)).toBe(true);
    expect(await b.markPending('docs', 'k1', 'Fix k1', 'prompts.txt', NOW + 2, seenByB)).toBe(false);
    // A run that read the row after the claim may take it over, but then the first may no
    // longer post: one of them sends it.
    const late = await b.get('docs', 'k1');
    expect(await b.markPending('docs', 'k1', 'Fix k1', 'prompts.txt', NOW + 3, late)).toBe(true);
    expect(await a.markPosting('docs', 'k1', NOW + 4)).toBe(false);
    expect(await b.markPosting('docs', 'k1', NOW + 4)).toBe(true);
  });

  it('a prompt read as cut off mid-POST is called unknown only if no run took it since', async () => {
    const earlier = new JobLedger(new Store(path), 'run-0');
    await earlier.markPending('docs', 'k1', 'Fix k1', 'prompts.txt', NOW);
    await earlier.markPosting('docs', 'k1', NOW);
    const a = new JobLedger(new Store(path), 'run-a');
    const b = new JobLedger(new Store(path), 'run-b');
    const seenByA = await a.get('docs', 'k1');
    // B (with --resubmit-unknown) takes the prompt and is posting it when A writes what it judged.
    expect(await b.markPending('docs', 'k1', 'Fix k1', 'prompts.txt', NOW + 1, await b.get('docs', 'k1'))).toBe(true);
    expect(await b.markPosting('docs', 'k1', NOW + 2)).toBe(true);
    await a.recordOutcome('docs', 'k1', { status: 'unknown', error: 'cut off while submitting; outcome unknown' }, NOW + 3, seenByA);
    expect(await a.get('docs', 'k1')).toMatchObject({ status: 'pending', error: null, postStarted: true });
    // As read, it is: then it is unknown.
    const seen = await a.get('docs', 'k1');
    await a.recordOutcome('docs', 'k1', { status: 'unknown', error: 'cut off while submitting; outcome unknown' }, NOW + 4, seen);
    expect(await a.get('docs', 'k1')).toMatchObject({ status: 'unknown' });
  });

  // A run whose attempts created nothing leaves alone a row another run has taken since.
  it('agent_jobs: its clear and its outcome keep the other run\'s POST mark, so no later run posts the prompt again', async () => {
    const a = new JobLedger(new Store(path), 'run-a');
    const b = new JobLedger(new Store(path), 'run-b');
    await a.markPending('docs', 'k1', 'Fix k1', 'prompts.txt', NOW);
    expect(await a.markPosting('docs', 'k1', NOW + 1)).toBe(true);
    // 429: A's attempt created nothing, and A waits for its Retry-After.
    await a.clearPosting('docs', 'k1', NOW + 2);
    // B takes the prompt meanwhile and posts it.
    const seen = await b.get('docs', 'k1');
    expect(await b.markPending('docs', 'k1', 'Fix k1', 'prompts.txt', NOW + 3, seen)).toBe(true);
    expect(await b.markPosting('docs', 'k1', NOW + 4)).toBe(true);
    // A is stopped (Ctrl-C) in its wait, or its last retry fails: nothing it sent created a job.
    await a.clearPosting('docs', 'k1', NOW + 5);
    await a.recordOutcome('docs', 'k1', { error: 'HTTP 503', nothingCreated: true }, NOW + 6);
    expect(await b.get('docs', 'k1')).toMatchObject({ status: 'pending', postStarted: true, error: null });
  });

  it('agent_messages: the same for a follow-up message', async () => {
    const a = new MessageLedger(new Store(path), 'run-a');
    const b = new MessageLedger(new Store(path), 'run-b');
    const message = { key: 'm1', jobId: 'job-1', promptKey: null, prompt: 'Also fix the links' };
    await a.markPending('docs', message, 'messages.jsonl', NOW);
    expect(await a.markPosting('docs', 'm1', NOW + 1)).toBe(true);
    await a.clearPosting('docs', 'm1', NOW + 2);
    expect(await b.markPending('docs', message, 'messages.jsonl', NOW + 3, await b.get('docs', 'm1'))).toBe(true);
    expect(await b.markPosting('docs', 'm1', NOW + 4)).toBe(true);
    await a.clearPosting('docs', 'm1', NOW + 5);
    await a.recordOutcome('docs', 'm1', { status: 'rejected', error: 'HTTP 400', nothingCreated: true }, NOW + 6);
    expect(await b.get('docs', 'm1')).toMatchObject({ status: 'pending', postStarted: true, error: null });
  });
});

describe('MessageLedger: two runs of the same messages claim each message once', () => {
  let path = '';
  freshDatabase((p) => (path = p));

  const message = { key: 'm1', jobId: 'job_0001', promptKey: null, prompt: 'Also fix the links' };

  it('a new message: the first run to record it may send it; the other may not', async () => {
    const a = new MessageLedger(new Store(path), 'run-a');
    const b = new MessageLedger(new Store(path), 'run-b');
    expect(await a.markPending('docs', message, 'messages.csv', NOW)).toBe(true);
    expect(await b.markPending('docs', message, 'messages.csv', NOW)).toBe(false);
  });

  it('a message read as not sent (an earlier run cut off): only a claim on the row as it was read goes through', async () => {
    const earlier = new MessageLedger(new Store(path), 'run-0');
    await earlier.markPending('docs', message, 'messages.csv', NOW);
    await earlier.recordOutcome('docs', 'm1', { status: 'unknown', error: 'cut off' }, NOW + 1);
    const a = new MessageLedger(new Store(path), 'run-a');
    const b = new MessageLedger(new Store(path), 'run-b');
    const seenByA = await a.get('docs', 'm1');
    const seenByB = await b.get('docs', 'm1');
    expect(seenByA?.writtenUs).toBe((NOW + 1) * 1000);
    expect(await a.markPending('docs', message, 'messages.csv', NOW + 2, seenByA)).toBe(true);
    expect(await b.markPending('docs', message, 'messages.csv', NOW + 3, seenByB)).toBe(false);
    expect((await a.get('docs', 'm1'))?.status).toBe('pending');
  });
});

describe('a poll another run made earlier never takes an ended job back', () => {
  let path = '';
  freshDatabase((p) => (path = p));
  const read = <T extends Record<string, unknown>>(sql: string): Promise<T[]> => Database.with(path, { readOnly: true }, (db) => db.all<T>(sql));

  it('agent_jobs: a stale poll keeps the end; a follow-up message (not a poll) makes the job active again', async () => {
    const ledger = new JobLedger(new Store(path), 'run-1');
    await ledger.markPending('docs', 'k1', 'Fix k1', 'prompts.txt', NOW);
    const done = { ...job('job-1', 'completed'), prLink: 'https://github.com/acme/docs/pull/1' };
    await ledger.recordJob('docs', 'k1', done, NOW + 1, { polled: true });
    await ledger.recordJob('docs', 'k1', job('job-1', 'active'), NOW + 2, { polled: true });
    expect(await read(`SELECT status, pr_link, finished_at IS NOT NULL AS finished FROM agent_jobs`)).toEqual([
      { status: 'completed', pr_link: 'https://github.com/acme/docs/pull/1', finished: true },
    ]);
    await ledger.recordJob('docs', 'k1', job('job-1', 'active'), NOW + 3);
    expect(await read(`SELECT status, finished_at IS NOT NULL AS finished FROM agent_jobs`)).toEqual([{ status: 'active', finished: false }]);
  });

  it('agent_jobs: a stale poll, or another run\'s deadline, keeps the reason the job failed and when it was archived', async () => {
    const a = new JobLedger(new Store(path), 'run-a');
    const b = new JobLedger(new Store(path), 'run-b');
    await a.markPending('docs', 'k1', 'Fix k1', 'prompts.txt', NOW);
    await a.recordCreated('docs', 'k1', job('job-1', 'active'), NOW + 1);
    await b.recordJob('docs', 'k1', { ...job('job-1', 'failed'), reason: 'repository not found', archivedAt: '2026-03-01T12:05:00Z' }, NOW + 10, { polled: true });
    const ended = [{ status: 'failed', error: 'repository not found', archived: '2026-03-01 12:05:00' }];
    const row = `SELECT status, error, strftime(archived_at AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S') AS archived FROM agent_jobs`;
    // A's poll made before B's, written after it; then A's follow deadline passes.
    await a.recordJob('docs', 'k1', job('job-1', 'active'), NOW + 11, { polled: true });
    expect(await read(row)).toEqual(ended);
    await a.recordOutcome('docs', 'k1', { status: 'timed_out', error: 'still active after 3600 s' }, NOW + 12);
    expect(await read(row)).toEqual(ended);
  });

  it('agent_messages: a stale poll keeps the job status and PR the message led to', async () => {
    const messages = new MessageLedger(new Store(path), 'run-1');
    const message = { key: 'm1', jobId: 'job-1', promptKey: null, prompt: 'Also fix the links' };
    await messages.markPending('docs', message, 'messages.jsonl', NOW);
    await messages.recordJob('docs', 'm1', job('job-1', 'active'), NOW + 1, { sent: true });
    await messages.recordJob('docs', 'm1', { ...job('job-1', 'completed'), prLink: 'https://github.com/acme/docs/pull/2' }, NOW + 2);
    await messages.recordJob('docs', 'm1', job('job-1', 'active'), NOW + 3);
    expect(await read(`SELECT status, job_status, pr_link, finished_at IS NOT NULL AS finished FROM agent_messages`)).toEqual([
      { status: 'sent', job_status: 'completed', pr_link: 'https://github.com/acme/docs/pull/2', finished: true },
    ]);
  });
});
