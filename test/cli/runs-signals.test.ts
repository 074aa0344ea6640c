/**
 * Issue 8 item 13: runs left `running` by a crash are marked `crashed` when the next run
 * starts, and SIGTERM and SIGHUP stop a run like Ctrl-C (exit 130, what finished saved).
 * The signals go to real docpipe processes (dist/ through bin/docpipe.js).
 */
import { thisProcess } from '../../src/core/process-identity.js';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/load/database.js';
import { SANDBOX_API_KEY } from '../../src/sandbox/server.js';
import { logLines, startHarness, type Harness, asText } from './harness.js';

const NOW = '2026-03-10T06:00:00Z';
const EXPORT = ['export', 'views', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-03'];

interface RunRow {
  run_id: string;
  status: string;
  exit_code: number | null;
  finished: boolean;
}

async function runs(db: string): Promise<RunRow[]> {
  const handle = await Database.open(db, { readOnly: true });
  try {
    return await handle.all<RunRow & Record<string, unknown>>(
      'SELECT run_id, status, exit_code, finished_at IS NOT NULL AS finished FROM runs ORDER BY started_at, run_id',
    );
  } finally {
    await handle.close();
  }
}

describe('runs left running by a crash', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(NOW, { site: { paths: 10 } });
  });
  afterEach(async () => {
    await h.close();
  });

  it('are marked crashed when the next run starts; live ones and other hosts are left alone', async () => {
    expect((await h.run(EXPORT)).code).toBe(0);
    // A process that has ended: its pid is gone.
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const db = await Database.open(h.db);
    try {
      const insert = `INSERT INTO runs (run_id, command, started_at, status, pid, host, process_start)
        VALUES ($id, 'export views', TIMESTAMPTZ '2026-03-09 00:00:00+00', 'running', $pid, $host, $start)`;
      const me = thisProcess();
      await db.run(insert, { id: 'dead-here', pid: gone, host: hostname(), start: null });
      await db.run(insert, { id: 'alive-here', pid: process.pid, host: hostname(), start: me.start ?? null });
      await db.run(insert, { id: 'other-host', pid: gone, host: `not-${hostname()}`, start: null });
      // This pid, but an earlier process's (it started at another time in this boot): gone.
      if (me.start) await db.run(insert, { id: 'reused-pid', pid: process.pid, host: hostname(), start: `1.${me.start.split('.').slice(1).join('.')}` });
    } finally {
      await db.close();
    }
    const next = await h.run([...EXPORT, '--refresh']);
    expect(next.code).toBe(0);
    const crashed = thisProcess().start ? ['dead-here', 'reused-pid'] : ['dead-here'];
    expect(logLines(next).find((l) => l.event === 'earlier runs marked crashed')).toMatchObject({ level: 'warn', runs: crashed });
    const byId = new Map((await runs(h.db)).map((r) => [r.run_id, r]));
    for (const id of crashed) expect(byId.get(id)).toMatchObject({ status: 'crashed', finished: true });
    expect(byId.get('alive-here')).toMatchObject({ status: 'running', finished: false });
    expect(byId.get('other-host')).toMatchObject({ status: 'running', finished: false });
    // A job batch starts a run the same way: nothing left to mark, no line.
    const file = join(h.dir, 'p.txt');
    writeFileSync(file, 'fix [pr]\n');
    const jobs = await h.run(['jobs', 'submit', file, '--project', 'docs', '--poll-interval', '0.01']);
    expect(jobs.code).toBe(0);
    expect(logLines(jobs).some((l) => l.event === 'earlier runs marked crashed')).toBe(false);
  });
});

describe('SIGTERM and SIGHUP', () => {
  let h: Harness;
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    h = await startHarness(NOW, { site: { paths: 10 }, jobs: { pollsToFinish: 1_000_000 } });
  });
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await h.close();
  });

  function start(args: string[], nodeArgs: string[] = []) {
    const child = spawn(process.execPath, [...nodeArgs, 'bin/docpipe.js', ...args, '--db', h.db, '--base-url', h.sandbox.url, '--log-format', 'json'], {
      env: { ...process.env, DOCPIPE_API_KEY: SANDBOX_API_KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out.stderr += chunk.toString()));
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const exit = ended.then((e) => e.code);
    // A child a failing test leaves behind is stopped with it.
    children.push(child);
    return { child, out, exit, ended };
  }

  /** CPU time a process has used so far (Linux; elsewhere undefined). */
  function cpuMs(pid: number): number | undefined {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      return undefined;
    }
  }

  async function until(check: () => boolean): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the child');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it.each(['SIGTERM', 'SIGHUP'] as const)('%s stops an export like Ctrl-C: exit 130, the run recorded as interrupted', async (signal) => {
    // Every answer takes 10 s: the signal arrives while the first request is in flight.
    h.sandbox.addFault({ kind: 'slow', delayMs: 10_000, times: Number.POSITIVE_INFINITY });
    const { child, out, exit } = start(EXPORT);
    await until(() => h.sandbox.requests.length > 0);
    // At work, it keeps its heartbeat in the spool (Linux), by which other containers tell it alive...
    const alive = join(`${h.db}.spool`, 'alive');
    const beats = () => (existsSync(alive) ? readdirSync(alive).filter((f) => f.startsWith(`${child.pid}+`)) : []);
    expect(beats()).toHaveLength(process.platform === 'linux' ? 1 : 0);
    child.kill(signal);
    expect(await exit).toBe(130);
    // ...and takes it away when it exits.
    expect(beats()).toEqual([]);
    expect(asText(out.stderr)).toContain(`stopping (${signal}): finishing the current step and saving what is done`);
    // stderr is no terminal: JSON logs, the stop notice and the summary's lines included.
    const lines = out.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines.filter((l) => !l.startsWith('{'))).toEqual([]);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ level: 'warn', event: 'stopping', signal, detail: expect.stringContaining('saving what is done') }),
    );
    expect(JSON.parse(out.stdout.trim().split('\n').at(-1)!)).toMatchObject({ stopped: 'interrupted', exitCode: 130 });
    expect(await runs(h.db)).toEqual([expect.objectContaining({ status: 'interrupted', exit_code: 130, finished: true })]);
  });

  it('SIGHUP stops a job batch: the job submitted stays in the ledger with its id', async () => {
    const file = join(h.dir, 'p.txt');
    writeFileSync(file, 'first [pr]\nsecond [pr]\n');
    const { child, out, exit } = start(['jobs', 'submit', file, '--project', 'docs', '--concurrency', '1', '--poll-interval', '0.05']);
    await until(() => out.stderr.includes('job submitted'));
    child.kill('SIGHUP');
    expect(await exit).toBe(130);
    expect(asText(out.stderr)).toContain('stopping (SIGHUP)');
    expect(h.sandbox.jobs()).toHaveLength(1);
    expect(await runs(h.db)).toEqual([expect.objectContaining({ status: 'interrupted', exit_code: 130 })]);
    const handle = await Database.open(h.db, { readOnly: true });
    try {
      const ledger = await handle.all('SELECT prompt, status, job_id FROM agent_jobs WHERE job_id IS NOT NULL');
      expect(ledger).toEqual([{ prompt: 'first [pr]', status: 'active', job_id: h.sandbox.jobs()[0]!.id }]);
    } finally {
      await handle.close();
    }
  });

  it('Ctrl-C stops a query while its SQL runs: exit 130 at once, not once the SQL is done', async () => {
    expect((await h.run(EXPORT)).code).toBe(0);
    // Minutes of work on this machine, unless interrupted.
    const { child, out, exit } = start(['query', 'SELECT sum(i) FROM range(1000000000000) t(i)']);
    // Running: the process has spent a second of CPU (Linux), or (elsewhere) two seconds have passed.
    const since = Date.now();
    await until(() => (cpuMs(child.pid!) ?? (Date.now() - since) / 2) > 1000);
    const signalled = Date.now();
    child.kill('SIGINT');
    expect(await exit).toBe(130);
    expect(Date.now() - signalled).toBeLessThan(10_000);
    expect(asText(out.stderr)).toContain('docpipe: interrupted (Ctrl-C): the SQL was stopped');
  });

  it('a signal while the CLI is still loading stops the run as it would later: its summary, exit 130 (not the signal\'s default action)', async () => {
    const { child, out, exit } = start(EXPORT, ['--import', './test/fixtures/slow-cli-load.mjs']);
    await until(() => out.stderr.includes('loading the CLI'));
    child.kill('SIGTERM');
    expect(await exit).toBe(130);
    const summary = JSON.parse(out.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(summary).toMatchObject({ stopped: 'interrupted', stopMessage: 'interrupted (SIGTERM)', requests: 0, exitCode: 130 });
    expect(h.sandbox.requests).toEqual([]);
  });

  it('a signal on its way as the CLI finishes loading is not dropped between the listeners that keep it and the CLI\'s', async () => {
    const { out, exit } = start(EXPORT, ['--import', './test/fixtures/signal-at-cli-load.mjs']);
    expect(await exit, out.stderr).toBe(130);
    const summary = JSON.parse(out.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(summary).toMatchObject({ stopped: 'interrupted', stopMessage: 'interrupted (SIGTERM)', exitCode: 130 });
  });

  it.skipIf(process.platform === 'win32')('a second signal quits at once, even with a thread of the process blocked (a prompt file that is a pipe no one writes to)', async () => {
    const fifo = join(h.dir, 'prompts.txt');
    execFileSync('mkfifo', [fifo]);
    const { child, out, ended } = start(['jobs', 'submit', fifo, '--project', 'docs']);
    // The read of the pipe blocks one of libuv's threads, which process.exit waits for.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    child.kill('SIGTERM');
    await until(() => out.stderr.includes('"event":"stopping"'));
    child.kill('SIGTERM');
    // Ended by the signal, as kill ends a process (a shell shows 143): at once, saving nothing more.
    expect(await ended).toEqual({ code: null, signal: 'SIGTERM' });
  });
});
