/**
 * The session's hooks around each attempt, against a real sandbox over HTTP and a real spool:
 * a request's own last step (the job ledger marking a prompt as being posted, a database
 * write that may wait for the file) runs before the attempt is journalled.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentJob } from '../../src/api/agent.js';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/lib/common.js';
import { createSession, createWorkspace, type Workspace } from '../../src/lib/session.js';
import { SANDBOX_API_KEY, startSandbox, type Sandbox } from '../../src/sandbox/server.js';

describe('session: the journal line of an attempt', () => {
  let sandbox: Sandbox;
  let dir: string;
  let workspace: Workspace;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock('2026-03-10T06:00:00Z');
    sandbox = await startSandbox({ now: () => clock.now() });
    dir = mkdtempSync(join(tmpdir(), 'docpipe-session-'));
    workspace = createWorkspace({ db: join(dir, 's.duckdb'), lockTimeout: 5 }, 'run-s', silentLogger);
  });
  afterEach(async () => {
    workspace.journal.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const session = () => createSession({ workspace, newDatabase: true, apiKey: SANDBOX_API_KEY, baseUrl: sandbox.url, scope: 'agent:docs', perHour: 10, clock });

  it('is written only once the request\'s own step is done: a crash during it leaves no line, and no slot of the hour spent', async () => {
    const { client, budget } = session();
    let finishMarking!: () => void;
    const marking = new Promise<void>((resolve) => (finishMarking = resolve));
    let marked = false;
    const posted = createAgentJob(client, 'docs', 'Fix it [pr]', undefined, { beforeSend: async () => { await marking; marked = true; } });
    // The step waits (for the database file, say), and the process could be killed now.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(marked).toBe(false);
    expect(workspace.journal.lines()).toEqual([]);
    clock.advance(60_000);
    finishMarking();
    await posted;
    // Sent after the wait: its line, and its slot of the hour, count from then.
    expect(workspace.journal.lines()).toEqual([expect.objectContaining({ method: 'POST', started_ms: clock.now() })]);
    expect(budget.requestsUsed).toBe(1);
    expect(sandbox.requests).toHaveLength(1);
  });

  it('keeps the hour exact while requests wait in their step at once: a read of the history meanwhile keeps their slots', async () => {
    const { client } = createSession({ workspace, newDatabase: true, apiKey: SANDBOX_API_KEY, baseUrl: sandbox.url, scope: 'agent:docs', perHour: 5, maxWaitMs: 0, clock, budgeted: (m) => m === 'POST' });
    // Each prompt's step writes to the database and then takes a while: near the hour's end the
    // budget reads the history again (the slot's lock), before the others are journalled.
    const step = async (): Promise<void> => {
      await workspace.store.write(async (tx) => void (await tx.run('SELECT 1')));
      await new Promise((resolve) => setTimeout(resolve, 100));
    };
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => createAgentJob(client, 'docs', `prompt ${i} [pr]`, undefined, { beforeSend: step })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason))).toEqual(Array(5).fill(expect.stringMatching(/hourly request budget spent/)));
    expect(sandbox.requests).toHaveLength(5);
  });

  it('an attempt the step refuses gives its slot back and leaves no line', async () => {
    const { client, budget } = session();
    const refusal = new Error('another batch took the prompt');
    await expect(createAgentJob(client, 'docs', 'Fix it [pr]', undefined, { beforeSend: () => Promise.reject(refusal) })).rejects.toBe(refusal);
    expect(budget.requestsUsed).toBe(0);
    expect(workspace.journal.lines()).toEqual([]);
    expect(sandbox.requests).toEqual([]);
  });
});
