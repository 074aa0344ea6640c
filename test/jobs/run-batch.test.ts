import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/api/http-client.js';
import { systemClock } from '../../src/core/clock.js';
import { JobLedger } from '../../src/jobs/ledger.js';
import { MessageLedger } from '../../src/jobs/message-ledger.js';
import { runBatch } from '../../src/jobs/run-batch.js';
import { runMessages } from '../../src/jobs/run-messages.js';
import { Database } from '../../src/load/database.js';
import { Store } from '../../src/load/store.js';
import { keepJob } from '../../src/spool/kept-jobs.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { SANDBOX_API_KEY } from '../../src/sandbox/server.js';
import { holdFile } from '../cli/harness.js';

describe('a batch whose first read of its books meets a held file ends with its summary', () => {
  let dir = '';
  let path = '';
  let sandbox: Sandbox;
  let client: HttpClient;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-batch-'));
    path = join(dir, 'jobs.duckdb');
    await Database.with(path, {}, () => Promise.resolve());
    sandbox = await startSandbox({ port: 0 });
    client = new HttpClient({ apiKey: SANDBOX_API_KEY, baseUrl: sandbox.url });
  });
  afterEach(async () => {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('jobs: stopped locked (exit 75) with nothing posted, or interrupted (130) when stopped while it waits; it does not throw', async () => {
    const entries = [{ key: 'k1', prompt: 'Fix the typo [pr]', line: 1 }];
    const held = await holdFile(path);
    try {
      const batch = (store: Store, signal?: AbortSignal) =>
        runBatch({ client, ledger: new JobLedger(store, 'run-1'), clock: systemClock, projectId: 'docs', sourceFile: 'p.txt', entries, ...(signal ? { signal } : {}) });
      const locked = await batch(new Store(path, { lockTimeoutMs: 300 }));
      expect(locked).toMatchObject({ stopped: 'locked', exitCode: 75, submitted: 0, rowsRead: false, counts: { 'not read (database held)': 1 } });

      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const interrupted = await batch(new Store(path, { lockTimeoutMs: 60_000, signal: controller.signal }), controller.signal);
      expect(interrupted).toMatchObject({ stopped: 'interrupted', exitCode: 130, submitted: 0 });
    } finally {
      await held.release();
    }
    expect(sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
  });

  it('messages, with an answer an earlier run kept to record first: stopped locked (exit 75) with nothing sent; it does not throw', async () => {
    const spool = join(dir, 'spool');
    const job = { id: 'job_0009', status: 'active', model: null, repository: null, ref: null, prLink: null, badPrLink: null, createdAt: null, archivedAt: null, reason: null };
    keepJob(spool, 'sent', { projectId: 'docs', key: 'm0', job, at: Date.now() });
    const held = await holdFile(path);
    try {
      const store = new Store(path, { lockTimeoutMs: 300 });
      const summary = await runMessages({
        client,
        messages: new MessageLedger(store, 'run-1', spool),
        jobs: new JobLedger(store, 'run-1'),
        clock: systemClock,
        projectId: 'docs',
        sourceFile: 'm.txt',
        entries: [{ key: 'm1', jobId: 'job_0001', promptKey: null, prompt: 'Also fix the link', line: 1 }],
      });
      expect(summary).toMatchObject({ stopped: 'locked', exitCode: 75, sent: 0 });
    } finally {
      await held.release();
    }
    expect(sandbox.requests).toHaveLength(0);
    // The kept answer waits for the next run.
    expect(readdirSync(join(spool, 'sent', 'docs'))).toHaveLength(1);
  });
});
