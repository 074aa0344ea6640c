import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/load/database.js';
import { SANDBOX_API_KEY } from '../../src/sandbox/server.js';
import { logLines, queryDb, startHarness, summaryOf, type Harness } from './harness.js';

const NOW = '2026-03-10T06:00:00Z';
const FAST = ['--poll-interval', '0.5', '--project', 'docs'];

interface Job {
  prompt_key: string;
  prompt: string;
  status: string;
  pr_link: string | null;
  error: string | null;
  job_id: string | null;
}

async function ledger(h: Harness): Promise<Job[]> {
  const db = await Database.open(h.db);
  try {
    return await db.all<Job & Record<string, unknown>>('SELECT prompt_key, prompt, status, pr_link, error, job_id FROM agent_jobs ORDER BY prompt');
  } finally {
    db.close();
  }
}

function createdPerPrompt(h: Harness): Map<string, number> {
  const counts = new Map<string, number>();
  for (const job of h.sandbox.jobs()) counts.set(job.prompt, (counts.get(job.prompt) ?? 0) + 1);
  return counts;
}

describe('docpipe jobs submit', () => {
  let h: Harness;
  let file: string;
  const prompts = [
    'Add a troubleshooting section to /quickstart [pr]',
    'Confirm /installation needs no change [nopr]',
    'Rewrite the migration guide [fail]',
    'Retire the old changelog page [archive]',
    'Résumé des modifications — 日本語のページを更新 🚀 [pr]',
  ];
  beforeEach(async () => {
    h = await startHarness(NOW, { jobs: { pollsToFinish: 2 } });
    file = join(h.dir, 'prompts.txt');
    writeFileSync(file, ['# a batch', ...prompts, ''].join('\n'));
  });
  afterEach(async () => {
    await h.close();
  });

  it('submits each prompt once, follows each job to its end, and records outcomes', async () => {
    const result = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(result.code).toBe(0);
    const rows = await ledger(h);
    const byPrompt = new Map(rows.map((r) => [r.prompt, r]));
    expect(byPrompt.get(prompts[0]!)).toMatchObject({ status: 'completed', pr_link: expect.stringMatching(/^https:\/\/github\.com\/.+\/pull\/\d+$/) });
    expect(byPrompt.get(prompts[1]!)).toMatchObject({ status: 'completed', pr_link: null });
    expect(byPrompt.get(prompts[2]!)).toMatchObject({ status: 'failed' });
    expect(byPrompt.get(prompts[3]!)).toMatchObject({ status: 'archived' });
    expect(byPrompt.get(prompts[4]!)).toMatchObject({ status: 'completed' });
    expect([...createdPerPrompt(h).values()]).toEqual([1, 1, 1, 1, 1]);
    expect(summaryOf(result)).toMatchObject({ total: 5, submitted: 5 });

    const posts = h.requests('/job', 'POST');
    const again = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(again.code).toBe(0);
    expect(h.requests('/job', 'POST')).toBe(posts);
    expect(summaryOf(again)).toMatchObject({ submitted: 0 });
  });

  it('a local failure before a POST is sent (its journal line refused) leaves the prompt pending, not unknown, and stops the batch', async () => {
    // A file where the request journal's folder goes: every journal line fails before its POST.
    mkdirSync(`${h.db}.spool`, { recursive: true });
    writeFileSync(`${h.db}.spool/requests`, 'not a folder');
    const result = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(result.code).toBe(1);
    expect(h.requests('/job', 'POST')).toBe(0);
    expect(summaryOf(result)).toMatchObject({ submitted: 0, stopped: 'fatal', message: expect.stringMatching(/^could not send \(nothing was sent; it stays pending\): EEXIST/) });
    expect(new Set((await ledger(h)).map((r) => r.status))).toEqual(new Set(['pending']));
    // Once the disk is sound again, every prompt is submitted, once.
    rmSync(`${h.db}.spool/requests`);
    const again = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(again.code, again.stderr).toBe(0);
    expect(summaryOf(again)).toMatchObject({ submitted: 5 });
    expect([...createdPerPrompt(h).values()]).toEqual([1, 1, 1, 1, 1]);
  });

  it('runs 12 jobs at once under a stop signal without a MaxListenersExceededWarning (a line on stderr that is not JSON)', async () => {
    const many = join(h.dir, 'many.txt');
    writeFileSync(many, Array.from({ length: 14 }, (_, i) => `Prompt number ${i} [nopr]`).join('\n'));
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const result = await h.run(['jobs', 'submit', many, ...FAST, '--concurrency', '12'], { signal: new AbortController().signal });
      expect(result.code, result.stderr).toBe(0);
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('creates each job exactly once under POST 429 and 503, waiting what Retry-After says', async () => {
    h.sandbox.addFault({ kind: 'rate-limit', match: { method: 'POST' }, retryAfter: '2', times: 2 });
    h.sandbox.addFault({ kind: 'server-error', status: 503, match: { method: 'POST' }, times: 2 });
    h.sandbox.addFault({ kind: 'rate-limit', match: { method: 'POST' }, times: 1 });
    const result = await h.run(['jobs', 'submit', file, ...FAST, '--concurrency', '2']);
    expect(result.code).toBe(0);
    expect([...createdPerPrompt(h).values()]).toEqual([1, 1, 1, 1, 1]);
    expect(h.clock.sleeps.filter((ms) => ms === 2000)).toHaveLength(2);
    expect(h.requests('/job', 'POST')).toBe(5 + 5);
  });

  it('a POST answered 503 through every retry stops the batch on the budget (exit 75), its prompt pending: nothing was created', async () => {
    h.sandbox.addFault({ kind: 'server-error', status: 503, match: { method: 'POST' }, times: Infinity });
    const result = await h.run(['jobs', 'submit', file, ...FAST, '--concurrency', '1']);
    expect(result.code).toBe(75);
    expect(summaryOf(result)).toMatchObject({ submitted: 0, stopped: 'budget', message: expect.stringMatching(/HTTP 503/) });
    expect(h.requests('/job', 'POST')).toBeGreaterThan(1);
    expect(new Set((await ledger(h)).map((r) => r.status))).toEqual(new Set(['pending']));
  });

  it('survives polling faults: 500s, drops and malformed bodies', async () => {
    h.sandbox.addFault({ kind: 'server-error', match: { method: 'GET', path: '/job/' }, times: 3 });
    h.sandbox.addFault({ kind: 'drop', match: { method: 'GET', path: '/job/' }, times: 2 });
    h.sandbox.addFault({ kind: 'malformed', match: { method: 'GET', path: '/job/' }, times: 1 });
    const result = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(result.code).toBe(0);
    expect((await ledger(h)).every((r) => ['completed', 'failed', 'archived'].includes(r.status))).toBe(true);
    expect([...createdPerPrompt(h).values()]).toEqual([1, 1, 1, 1, 1]);
  });

  it('a poll answered with another job\'s id is a failed poll: the ledger keeps the job it follows, and records its end', async () => {
    writeFileSync(file, 'Fix the quickstart [pr]\n');
    h.sandbox.addFault({ kind: 'patch', match: { method: 'GET', path: '/job/' }, patch: { id: 'job_someone_else', status: 'completed' }, times: 2 });
    const result = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(result.code, result.stderr).toBe(0);
    const [job] = h.sandbox.jobs();
    expect(await ledger(h)).toMatchObject([{ job_id: job!.id, status: 'completed', pr_link: expect.stringMatching(/\/pull\/\d+$/) }]);
    // The two answers about another job ("completed") did not end this one.
    expect(h.requests('/job/', 'GET')).toBeGreaterThanOrEqual(3);
    expect(result.stderr).toContain("answered with another job ('job_someone_else')");
  });

  it('stops with exit 75 when every poll fails (the breaker), leaving its jobs to the next run rather than timed out', async () => {
    writeFileSync(file, 'First [pr]\nSecond [pr]\n');
    h.sandbox.addFault({ kind: 'server-error', status: 500, match: { method: 'GET', path: '/job/' }, times: Infinity });
    const result = await h.run(['jobs', 'submit', file, ...FAST, '--timeout', '3600']);
    expect(result.code, result.stderr).toBe(75);
    const summary = summaryOf(result);
    expect(summary).toMatchObject({ submitted: 2, stopped: 'failing' });
    expect(String(summary.message)).toMatch(/^the API failed 8 requests in a row \(last: HTTP 500\); stopped; unfinished jobs are polled again/);
    // It gave up at the breaker, not at --timeout: no job was called timed out.
    expect(h.requests('/job/', 'GET')).toBeLessThan(20);
    expect((await ledger(h)).map((r) => r.status)).not.toContain('timed_out');
    h.sandbox.clearFaults();
    const again = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(again.code, again.stderr).toBe(0);
    expect((await ledger(h)).map((r) => r.status)).toEqual(['completed', 'completed']);
    expect(h.requests('/job', 'POST')).toBe(2);
  });

  it('a poll answered 429 with a Retry-After past a minute stops the batch with exit 75, every job left to the next run', async () => {
    writeFileSync(file, 'First [pr]\nSecond [pr]\n');
    h.sandbox.addFault({ kind: 'rate-limit', retryAfter: '120', match: { method: 'GET', path: '/job/' }, times: Infinity });
    const result = await h.run(['jobs', 'submit', file, ...FAST, '--timeout', '3600']);
    expect(result.code, result.stderr).toBe(75);
    expect(summaryOf(result)).toMatchObject({ submitted: 2, stopped: 'budget' });
    // One poll each at most: none polled again at its interval, against the server's 120 s.
    expect(h.requests('/job/', 'GET')).toBeLessThanOrEqual(2);
    expect(h.clock.sleeps.filter((ms) => ms >= 60_000)).toEqual([]);
    expect((await ledger(h)).map((r) => r.status)).toEqual(['active', 'active']);
    h.sandbox.clearFaults();
    const again = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(again.code, again.stderr).toBe(0);
    expect((await ledger(h)).map((r) => r.status)).toEqual(['completed', 'completed']);
    expect(h.requests('/job', 'POST')).toBe(2);
  });

  it('polls answered 429 without Retry-After are failed polls: the job is polled again at its interval and the batch ends', async () => {
    writeFileSync(file, 'First [pr]\nSecond [pr]\n');
    h.sandbox.addFault({ kind: 'rate-limit', match: { method: 'GET', path: '/job/job_0001' }, times: 5 });
    const result = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(result.code, result.stderr).toBe(0);
    expect(summaryOf(result)).toMatchObject({ submitted: 2, stopped: null, counts: { completed: 2 } });
  });

  it('a POST whose TLS handshake failed (https spoken to an http server) created nothing: the prompts stay pending, and the next run submits each once', async () => {
    writeFileSync(file, 'First [pr]\nSecond [pr]\n');
    const result = await h.run(['jobs', 'submit', file, ...FAST, '--base-url', h.sandbox.url.replace(/^http:/, 'https:')]);
    expect(result.code).toBe(1);
    expect(summaryOf(result)).toMatchObject({ submitted: 0, stopped: 'fatal', message: expect.stringMatching(/^cannot connect to https:\/\/127\.0\.0\.1:\d+ \(EPROTO\)/) });
    expect(h.requests('/job')).toBe(0);
    expect((await ledger(h)).map((r) => [r.status, r.job_id])).toEqual([['pending', null], ['pending', null]]);
    const again = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(again.code, again.stderr).toBe(0);
    expect([...createdPerPrompt(h).values()]).toEqual([1, 1]);
  });

  it('a POST whose connection was refused created nothing: a run stopped during its backoff leaves the prompt pending, and the next run submits it', async () => {
    writeFileSync(file, 'Only prompt [pr]\n');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    // A real process, killed (SIGKILL) while it backs off before retrying the refused POST.
    const child = spawn(process.execPath, ['bin/docpipe.js', 'jobs', 'submit', file, ...FAST, '--db', h.db, '--base-url', `http://127.0.0.1:${port}`, '--log-format', 'json'], {
      env: { ...process.env, DOCPIPE_API_KEY: SANDBOX_API_KEY },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let seen = '';
    child.stderr.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (/"event":"retrying request".*"method":"POST"/.test(seen)) child.kill('SIGKILL');
    });
    const [, signal] = (await once(child, 'exit')) as [number | null, string | null];
    expect(signal, seen).toBe('SIGKILL');
    expect(await ledger(h)).toMatchObject([{ status: 'pending', job_id: null }]);
    const again = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(again.code, again.stderr).toBe(0);
    expect(h.requests('/job', 'POST')).toBe(1);
    expect(await ledger(h)).toMatchObject([{ status: 'completed' }]);
  });

  it('a job the API calls pending keeps that status past --timeout (the outcome goes beside it), and is followed again, never posted again', async () => {
    writeFileSync(file, 'Only prompt [pr]\n');
    h.sandbox.addFault({ kind: 'patch', match: { path: '/job' }, patch: { status: 'pending' }, times: Infinity });
    // A duration with its unit (2s) is 2 seconds, as a bare 2 is.
    const result = await h.run(['jobs', 'submit', file, ...FAST, '--timeout', '2s']);
    expect(result.code).toBe(1);
    expect(await ledger(h)).toMatchObject([{ status: 'pending', job_id: expect.any(String), error: expect.stringMatching(/after 2 s/) }]);
    const again = await h.run(['jobs', 'submit', file, ...FAST, '--timeout', '2', '--resubmit-unknown']);
    expect(again.code).toBe(1);
    expect(h.requests('/job', 'POST')).toBe(1);
  });

  it('records unknown after a reset that follows sending, and does not resubmit it', async () => {
    writeFileSync(file, 'Only prompt [pr]\n');
    h.sandbox.addFault({ kind: 'drop', match: { method: 'POST' }, dropPhase: 'after-handling' });
    const result = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(result.code).toBe(1);
    expect(await ledger(h)).toMatchObject([{ status: 'unknown' }]);
    expect(h.sandbox.jobs()).toHaveLength(1); // the server did create it
    const again = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(again.code).toBe(1);
    expect(h.sandbox.jobs()).toHaveLength(1);
    const resubmit = await h.run(['jobs', 'submit', file, ...FAST, '--resubmit-unknown']);
    expect(resubmit.code).toBe(0);
    expect(h.sandbox.jobs()).toHaveLength(2);
    expect(await ledger(h)).toMatchObject([{ status: 'completed' }]);
  });

  it('records unknown after a 500 on POST, and rejected after a 400', async () => {
    writeFileSync(file, 'First [pr]\nSecond [pr]\n');
    h.sandbox.addFault({ kind: 'server-error', status: 500, match: { method: 'POST' }, times: 1 });
    h.sandbox.addFault({ kind: 'server-error', status: 400, match: { method: 'POST' }, times: 1 });
    const result = await h.run(['jobs', 'submit', file, ...FAST, '--concurrency', '1']);
    expect(result.code).toBe(1);
    const statuses = (await ledger(h)).map((r) => r.status).sort();
    expect(statuses).toEqual(['rejected', 'unknown']);
    expect(h.requests('/job', 'POST')).toBe(2); // neither retried
  });

  it('a prompt the API refuses as too large (413) is rejected, and the rest of the file goes on', async () => {
    writeFileSync(file, 'Far too long [pr]\nShort [pr]\n');
    h.sandbox.addFault({ kind: 'body', status: 413, match: { method: 'POST' }, body: '{"error":"Request body too large"}', times: 1 });
    const result = await h.run(['jobs', 'submit', file, ...FAST, '--concurrency', '1']);
    expect(result.code, result.stderr).toBe(0); // as after a 400: the prompt's outcome is recorded
    expect((await ledger(h)).map((r) => [r.prompt, r.status])).toEqual(
      expect.arrayContaining([['Far too long [pr]', 'rejected'], ['Short [pr]', 'completed']]),
    );
    // A re-run does not send it again.
    const again = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(h.requests('/job', 'POST')).toBe(2);
    expect(again.code).toBe(0);
  });

  it('ends polling with timed_out, and a re-run polls again without submitting', async () => {
    writeFileSync(file, 'Never finishes [never]\n');
    const result = await h.run(['jobs', 'submit', file, ...FAST, '--timeout', '30']);
    expect(result.code).toBe(1);
    expect(await ledger(h)).toMatchObject([{ status: 'timed_out', error: expect.stringMatching(/still active after 30 s/) }]);
    const gets = h.requests('/job/', 'GET');
    expect(gets).toBeGreaterThan(3);
    const again = await h.run(['jobs', 'submit', file, ...FAST, '--timeout', '30']);
    expect(again.code).toBe(1);
    expect(h.requests('/job', 'POST')).toBe(1);
    expect(h.requests('/job/', 'GET')).toBeGreaterThan(gets);
  });

  it('polls once more at the deadline: a job that ended before it is recorded as it ended, not timed_out', async () => {
    writeFileSync(file, 'Fix the quickstart [pr]\n');
    // The job has ended by its first poll, which would come after 10 s; the timeout is 5 s.
    h.sandbox.addFault({ kind: 'patch', match: { method: 'GET', path: '/job/' }, patch: { status: 'completed' }, times: Infinity });
    const result = await h.run(['jobs', 'submit', file, '--project', 'docs', '--poll-interval', '10', '--timeout', '5']);
    expect(result.code, result.stderr).toBe(0);
    expect(h.requests('/job/', 'GET')).toBe(1);
    expect(await ledger(h)).toMatchObject([{ status: 'completed' }]);
  });

  it('records a 404 while polling as an error on that job, says it is lost, and polls it again next run', async () => {
    writeFileSync(file, 'Lost job [pr]\nFound job [pr]\n');
    h.sandbox.addFault({ kind: 'server-error', status: 404, match: { method: 'GET', path: '/job/job_0001' }, times: Infinity });
    const result = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(result.code).toBe(1);
    // The run's summary says lost, not active; the ledger keeps the job's last status.
    expect(summaryOf(result)).toMatchObject({ counts: { lost: 1, completed: 1 } });
    expect((await ledger(h)).find((r) => r.prompt === 'Lost job [pr]')).toMatchObject({ status: 'active', error: expect.stringMatching(/HTTP 404/) });
    const text = await h.run(['jobs', 'submit', file, ...FAST, '--log-format', 'text']);
    expect(text.stdout).toMatch(/^Lost job \[pr\] +lost/m);
    expect(text.stdout).toMatch(/1 lost, 1 completed/);
    h.sandbox.clearFaults();
    const again = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(again.code, again.stderr).toBe(0);
    expect(summaryOf(again)).toMatchObject({ counts: { completed: 2 } });
    expect(h.requests('/job', 'POST')).toBe(2);
  });

  it('a batch the database is held from before it begins ends with its summary (stopped: locked, exit 75), and posts nothing', async () => {
    await h.run(['jobs', 'submit', file, ...FAST]);
    const posted = h.requests('/job', 'POST');
    writeFileSync(file, 'A new prompt [pr]\n');
    const held = await Database.open(h.db);
    try {
      const child = spawnSync(
        process.execPath,
        ['bin/docpipe.js', 'jobs', 'submit', file, ...FAST, '--db', h.db, '--base-url', h.sandbox.url, '--lock-timeout', '1', '--log-format', 'json'],
        { encoding: 'utf8', env: { ...process.env, DOCPIPE_API_KEY: SANDBOX_API_KEY } },
      );
      expect(child.status, child.stderr).toBe(75);
      expect(JSON.parse(child.stdout.trim())).toMatchObject({ event: 'summary', total: 1, submitted: 0, counts: { 'not submitted': 1 }, stopped: 'locked' });
      // jobs from-query, whose query cannot run either: no prompt is known, none submitted.
      const fromQuery = spawnSync(
        process.execPath,
        ['bin/docpipe.js', 'jobs', 'from-query', "SELECT 'x' AS path", '--template', 'Review {path}', ...FAST, '--db', h.db, '--base-url', h.sandbox.url,
          '--lock-timeout', '1', '--log-format', 'json'],
        { encoding: 'utf8', env: { ...process.env, DOCPIPE_API_KEY: SANDBOX_API_KEY } },
      );
      expect(fromQuery.status, fromQuery.stderr).toBe(75);
      expect(JSON.parse(fromQuery.stdout.trim())).toMatchObject({ event: 'summary', command: 'jobs from-query', total: 0, submitted: 0, stopped: 'locked' });
      // Without a key it is bad usage (exit 2), held file or not.
      const { DOCPIPE_API_KEY: _key, ...noKey } = process.env;
      const keyless = spawnSync(
        process.execPath,
        ['bin/docpipe.js', 'jobs', 'from-query', "SELECT 'x' AS path", '--template', 'Review {path}', ...FAST, '--db', h.db, '--base-url', h.sandbox.url, '--lock-timeout', '1'],
        { encoding: 'utf8', env: noKey },
      );
      expect(keyless.status, keyless.stderr).toBe(2);
      expect(keyless.stderr).toMatch(/no API key/);
    } finally {
      held.close();
    }
    expect(h.requests('/job', 'POST')).toBe(posted);
  });

  it('--dry-run validates and lists without any request', async () => {
    const result = await h.run(['jobs', 'submit', file, ...FAST, '--dry-run'], { withKey: false });
    expect(result.code).toBe(0);
    expect(h.sandbox.requests).toHaveLength(0);
    expect(result.stdout).toMatch(/5 prompts .* 5 would be submitted; no request made/);
    // A dry run reads the ledger; it never creates a database that is not there.
    expect(existsSync(h.db)).toBe(false);
  });

  it('writes --results as CSV and lists the ledger', async () => {
    const out = join(h.dir, 'results.csv');
    await h.run(['jobs', 'submit', file, ...FAST, '--results', out]);
    const csv = readFileSync(out, 'utf8').trim().split('\n');
    expect(csv[0]).toBe('prompt_key,prompt,status,job_id,pr_link,error');
    expect(csv).toHaveLength(6);
    const list = await h.run(['jobs', 'list', '--status', 'failed', '--format', 'json']);
    const rows = list.stdout.trim().split('\n').map((l) => JSON.parse(l) as Job);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.prompt).toBe(prompts[2]);
    // --project names every project to list, repeated or comma-separated.
    const ofDocs = (await h.run(['jobs', 'list', '--project', 'docs', '--format', 'json'])).stdout.trim().split('\n');
    expect(ofDocs).toHaveLength(5);
    for (const projects of [['--project', 'other', '--project', 'docs'], ['--project', 'other,docs']]) {
      const both = await h.run(['jobs', 'list', ...projects, '--format', 'json']);
      expect(both.stdout.trim().split('\n'), projects.join(' ')).toEqual(ofDocs);
    }
    expect((await h.run(['jobs', 'list', '--project', 'other', '--format', 'json'])).stdout.trim()).toBe('');
  });

  it('a --results file that cannot be written at the end (its folder gone) is said, the summary still comes, and the run fails (exit 1)', async () => {
    writeFileSync(file, 'One prompt [pr]\n');
    const folder = join(h.dir, 'out');
    mkdirSync(folder);
    // The polls answer slowly (real time): the folder goes while the job is followed.
    h.sandbox.addFault({ kind: 'slow', match: { method: 'GET', path: '/job/' }, delayMs: 300, times: Infinity });
    const run = h.run(['jobs', 'submit', file, ...FAST, '--results', join(folder, 'results.csv')]);
    while (h.requests('/job', 'POST') === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    rmSync(folder, { recursive: true });
    const result = await run;
    expect(result.code).toBe(1);
    expect(summaryOf(result)).toMatchObject({ event: 'summary', submitted: 1, counts: { completed: 1 } });
    expect(logLines(result).some((l) => l.event === 'results not written' && l.level === 'error')).toBe(true);
  });

  it('exits 2 on a bad prompt file and submits nothing from it', async () => {
    const bad = join(h.dir, 'bad.jsonl');
    writeFileSync(bad, '{"prompt": "fine"}\n{"prompt": \n');
    const result = await h.run(['jobs', 'submit', bad, ...FAST]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad\.jsonl:2/);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('paces submissions to --jobs-per-hour across runs, and caps a run with --max-requests', async () => {
    const first = await h.run(['jobs', 'submit', file, ...FAST, '--jobs-per-hour', '2', '--max-requests', '3']);
    // Two POSTs fit the hour; the third waited for the hour to roll over; then the run cap.
    expect(first.code).toBe(75);
    expect(h.requests('/job', 'POST')).toBe(3);
    expect(h.clock.sleeps.some((ms) => ms > 3_000_000)).toBe(true);
    // The two the cap refused stay pending (nothing was created), with the reason.
    const pending = (await ledger(h)).filter((r) => r.status === 'pending');
    expect(pending).toHaveLength(2);
    expect(pending[0]!.error).toMatch(/request cap for this run reached/);
    const second = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(second.code).toBe(0);
    expect([...createdPerPrompt(h).values()]).toEqual([1, 1, 1, 1, 1]);
  });

  it('stops submitting on Ctrl-C with exit 130 and resumes later', async () => {
    const controller = new AbortController();
    const result = await h.run(['jobs', 'submit', file, ...FAST, '--concurrency', '1'], {
      signal: controller.signal,
      onStderr: (t) => {
        if (t.includes('job submitted')) controller.abort();
      },
    });
    expect(result.code).toBe(130);
    expect(h.sandbox.jobs()).toHaveLength(1);
    const again = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(again.code).toBe(0);
    expect([...createdPerPrompt(h).values()]).toEqual([1, 1, 1, 1, 1]);
  });

  it('Ctrl-C while the batch waits for the hourly budget: exit 130 with what is done in its summary and --results', async () => {
    const controller = new AbortController();
    const results = join(h.dir, 'out.csv');
    const result = await h.run(['jobs', 'submit', file, ...FAST, '--concurrency', '1', '--jobs-per-hour', '2', '--results', results], {
      signal: controller.signal,
      onStderr: (t) => {
        if (t.includes('waiting for the hourly budget')) controller.abort();
      },
    });
    expect(result.code).toBe(130);
    expect(h.sandbox.jobs()).toHaveLength(2);
    // The books were free: read, not "not read (database held)".
    expect(result.stdout).not.toContain('not read');
    // The two jobs, the prompt that was waiting, and the two it never reached: every prompt is named.
    const summary = summaryOf(result) as { submitted: number; jobs: { status: string }[]; counts: Record<string, number> };
    expect(summary.submitted).toBe(2);
    expect(summary.jobs).toHaveLength(5);
    expect(summary.jobs.filter((j) => j.status === 'not submitted')).toHaveLength(2);
    expect(summary.counts).toMatchObject({ pending: 1, 'not submitted': 2 });
    const lines = readFileSync(results, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(6); // the header and the 5 prompts
    expect(lines.filter((l) => l.includes(',not submitted,'))).toHaveLength(2);
  });

  it('resumes after the process is killed: no prompt is ever created twice', async () => {
    const many = Array.from({ length: 6 }, (_, i) => `Fix page ${i} [pr]`);
    writeFileSync(file, many.join('\n'));
    // A real child process on the real clock, killed once two jobs exist.
    const child = spawn(
      process.execPath,
      ['bin/docpipe.js', 'jobs', 'submit', file, '--project', 'docs', '--poll-interval', '0.05', '--concurrency', '1', '--db', h.db, '--base-url', h.sandbox.url],
      { env: { ...process.env, DOCPIPE_API_KEY: SANDBOX_API_KEY }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let childErr = '';
    child.stderr.on('data', (chunk: Buffer) => (childErr += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (h.sandbox.jobs().length >= 2) {
          clearInterval(timer);
          child.kill('SIGKILL');
          resolve();
        }
      }, 5);
      child.once('exit', () => {
        clearInterval(timer);
        reject(new Error(`child finished before it was killed: ${childErr}`));
      });
    });
    await new Promise((resolve) => child.once('exit', resolve));
    const result = await h.run(['jobs', 'submit', file, ...FAST]);
    const rows = await ledger(h);
    expect(rows).toHaveLength(6);
    // Every prompt was created at most once on the server...
    expect(Math.max(...createdPerPrompt(h).values())).toBe(1);
    // ...and the resumed run finished them all, except one cut off mid-POST, which is unknown.
    const unknown = rows.filter((r) => r.status === 'unknown');
    expect(unknown.length).toBeLessThanOrEqual(1);
    expect(rows.filter((r) => r.status === 'completed')).toHaveLength(6 - unknown.length);
    expect(result.code).toBe(unknown.length === 0 ? 0 : 1);
  });

  it('two batches of the same prompts at once (overlapping cron runs) create each job once', async () => {
    const many = Array.from({ length: 8 }, (_, i) => `Fix page ${i} [pr]`);
    writeFileSync(file, many.join('\n'));
    // Two real processes on the real clock, as two overlapping cron runs would be.
    const batch = (): Promise<{ code: number | null; out: string; err: string }> =>
      new Promise((resolve) => {
        const child = spawn(
          process.execPath,
          ['bin/docpipe.js', 'jobs', 'submit', file, '--project', 'docs', '--poll-interval', '0.05', '--db', h.db, '--base-url', h.sandbox.url, '--log-format', 'json'],
          { env: { ...process.env, DOCPIPE_API_KEY: SANDBOX_API_KEY }, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
        child.once('exit', (code) => resolve({ code, out, err }));
      });
    const [a, b] = await Promise.all([batch(), batch()]);
    expect([a.code, b.code], `${a.err}\n${b.err}`).toEqual([0, 0]);
    expect([...createdPerPrompt(h).values()]).toEqual(Array(8).fill(1));
    expect(h.requests('/job', 'POST')).toBe(8);
    expect((await ledger(h)).map((r) => r.status)).toEqual(Array(8).fill('completed'));
    // Each prompt was submitted by one of the two.
    const submitted = (run: { out: string }) => Number((JSON.parse(run.out.trim().split('\n').at(-1) ?? '{}') as { submitted?: number }).submitted);
    expect(submitted(a) + submitted(b)).toBe(8);
  });

  it('two batches of the same prompts at once in one process (a library caller) create each job once', async () => {
    const many = Array.from({ length: 8 }, (_, i) => `Fix page ${i} [pr]`);
    writeFileSync(file, many.join('\n'));
    // They share the process, its DuckDB instance and the request journal's folder.
    const [a, b] = await Promise.all([h.run(['jobs', 'submit', file, ...FAST]), h.run(['jobs', 'submit', file, ...FAST])]);
    expect([a.code, b.code], `${a.stderr}\n${b.stderr}`).toEqual([0, 0]);
    expect([...createdPerPrompt(h).values()]).toEqual(Array(8).fill(1));
    expect(Number(summaryOf(a).submitted) + Number(summaryOf(b).submitted)).toBe(8);
    // Every attempt of both is in request_log once.
    const logged = await queryDb<{ n: bigint; ids: bigint }>(h, `SELECT count(*) AS n, count(DISTINCT request_id) AS ids FROM request_log`);
    expect(logged[0]!.n).toBe(logged[0]!.ids);
    expect(Number(logged[0]!.n)).toBe(h.sandbox.requests.length);
  });
});
