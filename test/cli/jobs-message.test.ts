/**
 * `docpipe jobs message`: follow-up messages against the sandbox over HTTP, the
 * `agent_messages` table, and the agent budget they share with job creation.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/load/database.js';
import { SANDBOX_API_KEY } from '../../src/sandbox/server.js';
import { killWhenLogged, logLines, startHarness, summaryOf, type Harness, asText } from './harness.js';

const NOW = '2026-03-10T06:00:00Z';
const FAST = ['--project', 'docs', '--poll-interval', '0.5'];

interface Message extends Record<string, unknown> {
  message_key: string;
  job_id: string;
  prompt_key: string | null;
  prompt: string;
  status: string;
  status_after: string | null;
  job_status: string | null;
  pr_link: string | null;
  sent_at: Date | null;
}

async function all<T extends Record<string, unknown>>(db: string, sql: string): Promise<T[]> {
  return Database.with(db, { readOnly: true }, (d) => d.all<T>(sql));
}

const messages = (db: string) =>
  all<Message>(db, 'SELECT message_key, job_id, prompt_key, prompt, status, status_after, job_status, pr_link, sent_at FROM agent_messages ORDER BY sent_at, message_key');

/** The sandbox's requests about one job, as `METHOD kind` (message POSTs and polls). */
function jobTraffic(h: Harness, jobId: string): string[] {
  return h.sandbox.requests
    .filter((r) => r.path.includes(`/job/${jobId}`))
    .map((r) => `${r.method} ${r.path.endsWith('/message') ? 'message' : 'poll'}`);
}

describe('docpipe jobs message', () => {
  let h: Harness;
  let prompts: string;
  beforeEach(async () => {
    h = await startHarness(NOW, { jobs: { pollsToFinish: 2 } });
    prompts = join(h.dir, 'prompts.txt');
    writeFileSync(prompts, 'Check /installation [nopr]\nRewrite the migration guide [fail]\n');
    const submitted = await h.run(['jobs', 'submit', prompts, ...FAST]);
    expect(submitted.code, submitted.stderr).toBe(0);
  });
  afterEach(async () => {
    await h.close();
  });

  async function jobOf(prompt: string): Promise<{ job_id: string; prompt_key: string; status: string; pr_link: string | null }> {
    const [row] = await all<{ job_id: string; prompt_key: string; status: string; pr_link: string | null }>(
      h.db,
      `SELECT job_id, prompt_key, status, pr_link FROM agent_jobs WHERE prompt LIKE '${prompt}%'`,
    );
    return row!;
  }

  it('a local failure before the POST is sent (its journal line refused) leaves the message pending, not unknown', async () => {
    const job = await jobOf('Check /installation');
    const requests = `${h.db}.spool/requests`;
    rmSync(requests, { recursive: true, force: true });
    writeFileSync(requests, 'not a folder');
    const result = await h.run(['jobs', 'message', job.job_id, 'Add the Windows steps after all [pr]', ...FAST]);
    expect(result.code).toBe(1);
    expect(summaryOf(result)).toMatchObject({ sent: 0, stopped: 'fatal', message: expect.stringMatching(/^could not send \(nothing was sent; it stays pending\): EEXIST/) });
    expect(jobTraffic(h, job.job_id).filter((t) => t === 'POST message')).toHaveLength(0);
    rmSync(requests);
    const again = await h.run(['jobs', 'message', job.job_id, 'Add the Windows steps after all [pr]', ...FAST]);
    expect(again.code, again.stderr).toBe(0);
    expect(summaryOf(again)).toMatchObject({ sent: 1 });
    expect(jobTraffic(h, job.job_id).filter((t) => t === 'POST message')).toHaveLength(1);
  });

  it('sends one message, records it, follows the job again to its end, and never sends it twice', async () => {
    const job = await jobOf('Check /installation');
    expect(job.status).toBe('completed');
    expect(job.pr_link).toBeNull();
    const result = await h.run(['jobs', 'message', job.job_id, 'Add the Windows steps after all [pr]', ...FAST]);
    expect(result.code, result.stderr).toBe(0);
    expect(summaryOf(result)).toMatchObject({ command: 'jobs message', total: 1, sent: 1, counts: { 'sent: completed': 1 } });
    expect(jobTraffic(h, job.job_id).filter((t) => t === 'POST message')).toHaveLength(1);
    // After the message the job works again: it is polled until it ends.
    expect(jobTraffic(h, job.job_id).slice(-3)).toEqual(['POST message', 'GET poll', 'GET poll']);

    const [row] = await messages(h.db);
    expect(row).toMatchObject({
      job_id: job.job_id,
      prompt_key: job.prompt_key,
      prompt: 'Add the Windows steps after all [pr]',
      status: 'sent',
      status_after: 'active',
      job_status: 'completed',
      pr_link: expect.stringMatching(/\/pull\/\d+$/),
    });
    expect(row!.sent_at).toBeInstanceOf(Date);
    expect(row!.message_key).toMatch(/^sha256:[0-9a-f]{16}$/);
    // The job ledger follows the job too.
    expect(await jobOf('Check /installation')).toMatchObject({ status: 'completed', pr_link: row!.pr_link });
    // And `jobs list` counts the message, in its table and as JSON.
    const listed = await h.run(['jobs', 'list', '--format', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    const ledger = listed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { job_id: string; messages: number });
    expect(ledger.map((r) => [r.job_id === job.job_id, r.messages])).toEqual(expect.arrayContaining([[true, 1], [false, 0]]));
    const table = (await h.run(['jobs', 'list'])).stdout.split('\n');
    expect(table[0]).toMatch(/^key\s+status\s+msgs\s+prompt\s+result$/);
    expect(table.find((l) => l.startsWith(job.prompt_key))).toMatch(/completed\s+1\s+Check/);

    const again = await h.run(['jobs', 'message', job.job_id, 'Add the Windows steps after all [pr]', ...FAST]);
    expect(again.code).toBe(0);
    expect(summaryOf(again)).toMatchObject({ total: 1, sent: 0 });
    expect(jobTraffic(h, job.job_id).filter((t) => t === 'POST message')).toHaveLength(1);
    expect(await messages(h.db)).toHaveLength(1);
  });

  it('an answer to a message that names another job moves nothing: the prompt and the message keep the job asked for, with a warning', async () => {
    const job = await jobOf('Check /installation');
    // The other job's status and PR are not taken for this one's either.
    h.sandbox.addFault({ kind: 'patch', match: { method: 'POST', path: '/message' }, patch: { id: 'job_999', status: 'completed', prLink: 'https://github.com/acme/docs/pull/999' }, times: 1 });
    const result = await h.run(['jobs', 'message', job.job_id, 'Rename the heading [nopr]', ...FAST]);
    expect(result.code, result.stderr).toBe(0);
    expect(logLines(result).some((l) => l.level === 'warn' && String(l.message).includes(`answered the message to job ${job.job_id} with another job ('job_999')`))).toBe(true);
    expect(await jobOf('Check /installation')).toMatchObject({ job_id: job.job_id, status: 'completed', pr_link: null });
    expect(await messages(h.db)).toMatchObject([{ job_id: job.job_id, status: 'sent', status_after: 'active', pr_link: null }]);
    expect(h.sandbox.requests.some((r) => r.path.includes('job_999'))).toBe(false);
  });

  it('a run stopped between its two ledger writes: the next run brings the prompt\'s row up to the job\'s end, without a request', async () => {
    const job = await jobOf('Check /installation');
    const args = ['jobs', 'message', job.job_id, 'Add the Windows steps after all [pr]', ...FAST];
    expect((await h.run(args)).code).toBe(0);
    const [message] = await messages(h.db);
    // As a kill after the message's write and before the prompt's leaves it.
    await Database.with(h.db, {}, (d) => d.run(`UPDATE agent_jobs SET status = 'active', finished_at = NULL, pr_link = NULL WHERE job_id = '${job.job_id}'`));
    const requests = h.sandbox.requests.length;
    const again = await h.run(args);
    expect(again.code, again.stderr).toBe(0);
    expect(h.sandbox.requests.length).toBe(requests);
    expect(await jobOf('Check /installation')).toMatchObject({ status: 'completed', pr_link: message!.pr_link });
  });

  it('sends a batch file by job id and by prompt key; a job’s messages go one after the other, each after the job ended', async () => {
    const a = await jobOf('Check /installation');
    const b = await jobOf('Rewrite the migration guide');
    const file = join(h.dir, 'messages.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ jobId: a.job_id, prompt: 'Also document the proxy settings [nopr]' }),
        JSON.stringify({ promptKey: b.prompt_key, prompt: 'Try again with a smaller scope [pr]', id: 'retry-guide' }),
        JSON.stringify({ jobId: a.job_id, prompt: 'Now open a PR with both changes [pr]' }),
        '',
      ].join('\n'),
    );
    const dry = await h.run(['jobs', 'message', '--file', file, ...FAST, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('dry run: 3 messages from');
    expect(dry.stdout).toContain('3 would be sent; no request made');
    expect(h.requests('/message')).toBe(0);

    const result = await h.run(['jobs', 'message', '--file', file, ...FAST]);
    expect(result.code, result.stderr).toBe(0);
    expect(summaryOf(result)).toMatchObject({ total: 3, sent: 3 });
    const traffic = jobTraffic(h, a.job_id);
    const first = traffic.indexOf('POST message');
    const second = traffic.lastIndexOf('POST message');
    expect(traffic.slice(first, second)).toEqual(['POST message', 'GET poll', 'GET poll']);
    const rows = await messages(h.db);
    const byPrompt = (x: string[], y: string[]) => (x[1]! < y[1]! ? -1 : 1);
    expect(rows.map((r) => [r.job_id, r.prompt, r.status, r.job_status ?? '']).sort(byPrompt)).toEqual(
      [
        [a.job_id, 'Also document the proxy settings [nopr]', 'sent', 'completed'],
        [b.job_id, 'Try again with a smaller scope [pr]', 'sent', 'completed'],
        [a.job_id, 'Now open a PR with both changes [pr]', 'sent', 'completed'],
      ].sort(byPrompt),
    );
    // The job's second message was sent after the first, and its PR is the job's now.
    const [firstA, secondA] = rows.filter((r) => r.job_id === a.job_id);
    expect([firstA!.prompt, secondA!.prompt]).toEqual(['Also document the proxy settings [nopr]', 'Now open a PR with both changes [pr]']);
    expect(secondA!.pr_link).toMatch(/\/pull\//);
    expect(rows.find((r) => r.job_id === b.job_id)).toMatchObject({ message_key: 'retry-guide', prompt_key: b.prompt_key, pr_link: expect.stringMatching(/\/pull\//) });
    expect(await jobOf('Rewrite the migration guide')).toMatchObject({ status: 'completed', pr_link: expect.stringMatching(/\/pull\//) });

    const posts = h.requests('/message', 'POST');
    const again = await h.run(['jobs', 'message', '--file', file, ...FAST]);
    expect(again.code).toBe(0);
    expect(summaryOf(again)).toMatchObject({ total: 3, sent: 0 });
    expect(h.requests('/message', 'POST')).toBe(posts);
  });

  it.each([
    [[JSON.stringify({ promptKey: 'sha256:0000000000000000', prompt: 'x' })], "docpipe: FILE:1: no job in the ledger with prompt key 'sha256:0000000000000000'"],
    [['', JSON.stringify({ jobId: 'job_0001' })], 'docpipe: FILE:2: missing or empty "prompt"'],
    [[JSON.stringify({ jobId: 'job_0001', promptKey: 'k', prompt: 'x' })], 'docpipe: FILE:1: give exactly one of "jobId" and "promptKey"'],
    [[JSON.stringify({ jobid: 'job_0001', prompt: 'x' })], 'docpipe: FILE:1: unknown field "jobid" (expected jobId or promptKey, prompt, and optionally id)'],
    [['{"jobId": "job_0001", "prompt": "Fix it", "jobId": "job_0002"}'], 'docpipe: FILE:1: key "jobId" given twice (keep one)'],
    [['{"jobId": "job_0001", "prompt": '], `docpipe: FILE:1: invalid JSON: '{"jobId": "job_0001", "prompt":'`],
  ])('a bad batch file %j exits 2 with one line naming the line, and sends nothing', async (lines, message) => {
    const file = join(h.dir, 'bad.jsonl');
    writeFileSync(file, lines.join('\n'));
    const result = await h.run(['jobs', 'message', '--file', file, ...FAST]);
    expect(result.code).toBe(2);
    expect(asText(result.stderr).trim()).toBe(message.replace('FILE', file));
    expect(h.requests('/message')).toBe(0);
  });

  it('an id used before for another message is warned about and not sent: the earlier message stands', async () => {
    const a = await jobOf('Check /installation');
    const b = await jobOf('Rewrite the migration guide');
    const week1 = join(h.dir, 'week1.jsonl');
    const week2 = join(h.dir, 'week2.jsonl');
    writeFileSync(week1, `${JSON.stringify({ jobId: a.job_id, prompt: 'Add a FAQ entry [nopr]', id: 'm1' })}\n`);
    writeFileSync(week2, `${JSON.stringify({ jobId: b.job_id, prompt: 'Add a changelog entry [nopr]', id: 'm1' })}\n`);
    expect((await h.run(['jobs', 'message', '--file', week1, ...FAST])).code).toBe(0);
    const sent = h.requests('/message');
    const second = await h.run(['jobs', 'message', '--file', week2, ...FAST]);
    expect(h.requests('/message')).toBe(sent);
    expect(logLines(second).find((l) => l.event === 'message warning')?.message).toMatch(/^id 'm1' \(line 1\) was used before for another message \(to /);
  });

  it('bad usage exits 2: no text, both forms, no project', async () => {
    const cases: [string[], string][] = [
      [['jobs', 'message', 'job_0001', ...FAST], 'docpipe: name a job and the message: docpipe jobs message JOB_ID TEXT (or --file FILE.jsonl)'],
      [['jobs', 'message', 'job_0001', 'hi', '--file', 'x.jsonl', ...FAST], 'docpipe: give either JOB_ID TEXT or --file, not both'],
      [['jobs', 'message', 'job_0001', 'hi', '--poll-interval', '0.5'], 'docpipe: no project: pass --project ID (or set DOCPIPE_PROJECT)'],
      [['jobs', 'message', 'job_0001', 'hi', ...FAST, '--timeout', '-1'], "docpipe: invalid --timeout '-1': expected a number of seconds > 0, or a duration such as 90s, 45m or 2h"],
    ];
    for (const [args, line] of cases) {
      const result = await h.run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(asText(result.stderr).trim()).toBe(line);
    }
    expect(h.requests('/message')).toBe(0);
  });

  it('a job the API does not know is rejected (404), recorded, and not sent again', async () => {
    const result = await h.run(['jobs', 'message', 'job_9999', 'Hello? [pr]', ...FAST]);
    expect(result.code).toBe(0);
    expect(await messages(h.db)).toMatchObject([{ job_id: 'job_9999', prompt_key: null, status: 'rejected', job_status: null }]);
    const again = await h.run(['jobs', 'message', 'job_9999', 'Hello? [pr]', ...FAST]);
    expect(again.code).toBe(0);
    expect(h.requests('/job_9999/message')).toBe(1);
  });

  it('an unknown outcome (reset after sending) is recorded and not resent unless asked; a 429 is retried without a second message', async () => {
    const job = await jobOf('Check /installation');
    h.sandbox.addFault({ kind: 'drop', match: { method: 'POST', path: '/message' }, dropPhase: 'after-handling' });
    const result = await h.run(['jobs', 'message', job.job_id, 'Add a FAQ [pr]', ...FAST]);
    expect(result.code).toBe(1);
    expect(await messages(h.db)).toMatchObject([{ status: 'unknown' }]);
    const again = await h.run(['jobs', 'message', job.job_id, 'Add a FAQ [pr]', ...FAST]);
    expect(again.code).toBe(1);
    expect(h.requests('/message', 'POST')).toBe(1);

    h.sandbox.addFault({ kind: 'rate-limit', match: { method: 'POST', path: '/message' }, retryAfter: '3', times: 1 });
    const resend = await h.run(['jobs', 'message', job.job_id, 'Add a FAQ [pr]', ...FAST, '--resubmit-unknown']);
    expect(resend.code, resend.stderr).toBe(0);
    expect(h.requests('/message', 'POST')).toBe(3); // the lost one, the 429, the one that went through
    expect(h.clock.sleeps).toContain(3000);
    expect(await messages(h.db)).toMatchObject([{ status: 'sent', job_status: 'completed' }]);
  });

  it('a message the run never reached (the one before it on its job had an unknown outcome) is in the summary, not sent', async () => {
    const job = await jobOf('Check /installation');
    const file = join(h.dir, 'two-messages.jsonl');
    writeFileSync(file, [JSON.stringify({ jobId: job.job_id, prompt: 'First [pr]' }), JSON.stringify({ jobId: job.job_id, prompt: 'Second [pr]' }), ''].join('\n'));
    h.sandbox.addFault({ kind: 'drop', match: { method: 'POST', path: '/message' }, dropPhase: 'after-handling' });
    const result = await h.run(['jobs', 'message', '--file', file, ...FAST]);
    expect(result.code).toBe(1);
    expect(h.requests('/message', 'POST')).toBe(1);
    const summary = summaryOf(result);
    expect(summary).toMatchObject({ total: 2, counts: { unknown: 1, 'not sent': 1 } });
    // Every message of the file is named, in its order.
    const listed = (summary.messages as { prompt: string; status: string }[]).map((m) => [m.prompt, m.status]);
    expect(listed).toEqual([['First [pr]', 'unknown'], ['Second [pr]', 'not sent']]);
  });

  it('a message another run still has in flight is left to it, even with --resubmit-unknown', async () => {
    const job = await jobOf('Check /installation');
    expect((await h.run(['jobs', 'message', job.job_id, 'Add a FAQ [pr]', ...FAST])).code).toBe(0);
    // As another run, still going (its process is this one's parent), leaves it mid-POST.
    const db = await Database.open(h.db);
    await db.run(
      `INSERT INTO runs (run_id, command, started_at, status, pid, host) VALUES ('other-run', 'jobs message', now(), 'running', $pid, $host)`,
      { pid: process.ppid, host: hostname() },
    );
    await db.run(`UPDATE agent_messages SET status = 'pending', post_started_at = now(), run_id = 'other-run', updated_at = now()`);
    await db.close();
    const result = await h.run(['jobs', 'message', job.job_id, 'Add a FAQ [pr]', ...FAST, '--resubmit-unknown']);
    expect(result.code, result.stderr).toBe(0);
    expect(logLines(result).some((l) => l.reason === 'taken by another run of the same messages')).toBe(true);
    expect(h.requests('/message', 'POST')).toBe(1);
    expect(await messages(h.db)).toMatchObject([{ status: 'pending' }]);
  });

  it('--dry-run says what the run would do with a message cut off mid-POST, and makes no database where there is none', async () => {
    const job = await jobOf('Check /installation');
    expect((await h.run(['jobs', 'message', job.job_id, 'Add a FAQ [pr]', ...FAST])).code).toBe(0);
    // As a run killed during the POST leaves it (its run gone): pending, marked as being posted.
    const db = await Database.open(h.db);
    await db.run(`UPDATE agent_messages SET status = 'pending', post_started_at = now(), run_id = 'gone-run', updated_at = now()`);
    await db.close();
    const dry = await h.run(['jobs', 'message', job.job_id, 'Add a FAQ [pr]', ...FAST, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('skip (unknown)');
    expect(dry.stdout).toContain('0 would be sent');
    const real = await h.run(['jobs', 'message', job.job_id, 'Add a FAQ [pr]', ...FAST]);
    expect(real.code).toBe(1); // unknown, as the dry run said
    expect(h.requests('/message', 'POST')).toBe(1);
    const nowhere = join(h.dir, 'none', 'docpipe.duckdb');
    const fresh = await h.run(['jobs', 'message', 'job_1', 'Hello', ...FAST, '--dry-run', '--db', nowhere]);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout).toContain('1 would be sent');
    expect(existsSync(nowhere)).toBe(false);
  });

  it('an answer that shows the job ended (as it was before the message) is no end: the job still working at --timeout is timed_out (exit 1), message and prompt alike', async () => {
    const job = await jobOf('Check /installation');
    h.sandbox.addFault({ kind: 'patch', match: { method: 'POST', path: '/message' }, patch: { status: 'completed' }, times: 1 });
    const result = await h.run(['jobs', 'message', job.job_id, 'Keep going forever [never]', ...FAST, '--timeout', '30']);
    expect(result.code).toBe(1);
    expect(await messages(h.db)).toMatchObject([{ status: 'sent', status_after: 'completed', job_status: 'timed_out' }]);
    expect(await jobOf('Check /installation')).toMatchObject({ status: 'timed_out' });
  });

  it('a status the API does not document is kept at --timeout (the timeout beside it), and a later poll without a PR keeps the one the message got', async () => {
    const job = await jobOf('Check /installation');
    // The message's answer carries a PR; every poll after says `cancelled`, with no PR.
    h.sandbox.addFault({ kind: 'patch', match: { method: 'POST', path: '/message' }, patch: { status: 'active', prLink: 'https://github.com/acme/docs/pull/77' }, times: 1 });
    h.sandbox.addFault({ kind: 'patch', match: { method: 'GET', path: '/job/' }, patch: { status: 'cancelled', prLink: null }, times: Infinity });
    const result = await h.run(['jobs', 'message', job.job_id, 'Add the Windows steps after all [pr]', ...FAST, '--timeout', '30']);
    expect(result.code).toBe(1);
    expect(await messages(h.db)).toMatchObject([{ status: 'sent', job_status: 'cancelled', pr_link: 'https://github.com/acme/docs/pull/77' }]);
    expect(await all(h.db, 'SELECT error FROM agent_messages')).toEqual([{ error: 'still cancelled after 30 s' }]);
  });

  it('a job still working at --timeout is timed_out (exit 1); a re-run follows it again without sending again', async () => {
    const job = await jobOf('Check /installation');
    const result = await h.run(['jobs', 'message', job.job_id, 'Keep going forever [never]', ...FAST, '--timeout', '30']);
    expect(result.code).toBe(1);
    expect(await messages(h.db)).toMatchObject([{ status: 'sent', job_status: 'timed_out' }]);
    expect(await jobOf('Check /installation')).toMatchObject({ status: 'timed_out' });
    const polls = jobTraffic(h, job.job_id).length;
    const again = await h.run(['jobs', 'message', job.job_id, 'Keep going forever [never]', ...FAST, '--timeout', '30']);
    expect(again.code).toBe(1);
    expect(summaryOf(again)).toMatchObject({ sent: 0 });
    const traffic = jobTraffic(h, job.job_id).slice(polls);
    expect(traffic.length).toBeGreaterThan(0);
    expect(traffic.every((t) => t === 'GET poll')).toBe(true);
  });

  it('marks a message as being posted only just before its POST: one killed while it waited for the budget is sent later', async () => {
    const job = await jobOf('Check /installation');
    const file = join(h.dir, 'messages.jsonl');
    // One job's messages go one after the other: the second waits for the first to be sent and followed.
    writeFileSync(file, `{"id":"m1","jobId":"${job.job_id}","prompt":"One [nopr]"}\n{"id":"m2","jobId":"${job.job_id}","prompt":"Two [nopr]"}\n`);
    // A real process on the real clock: the second message waits an hour for its budget slot.
    await killWhenLogged(h, ['jobs', 'message', '--file', file, '--project', 'docs', '--poll-interval', '0.05', '--jobs-per-hour', '1'], 'waiting for the hourly budget');
    const posted = h.sandbox.requests.filter((r) => r.path.endsWith('/message')).length;
    expect(posted).toBe(1);
    const rows = await all<{ message_key: string; status: string; post_started: boolean }>(
      h.db,
      'SELECT message_key, status, post_started_at IS NOT NULL AS post_started FROM agent_messages ORDER BY message_key',
    );
    // The one that waited was never sent: not posted, so not unknown.
    expect(rows).toEqual([
      { message_key: 'm1', status: 'sent', post_started: true },
      { message_key: 'm2', status: 'pending', post_started: false },
    ]);
    const result = await h.run(['jobs', 'message', '--file', file, ...FAST]);
    expect(result.code, result.stderr).toBe(0);
    expect(h.sandbox.requests.filter((r) => r.path.endsWith('/message'))).toHaveLength(2);
  });

  it('shares the per-project hourly budget with job creation: a message after a full hour of submissions waits', async () => {
    // Two jobs were created in beforeEach; allow two agent POSTs an hour.
    const job = await jobOf('Check /installation');
    const started = h.clock.now();
    const result = await h.run(['jobs', 'message', job.job_id, 'One more thing [nopr]', ...FAST, '--jobs-per-hour', '2']);
    expect(result.code, result.stderr).toBe(0);
    const wait = logLines(result).find((l) => l.event === 'waiting for the hourly budget');
    expect(wait).toMatchObject({ scope: `agent:docs@${h.sandbox.url}`, used_last_hour: 2, per_hour: 2 });
    const message = h.sandbox.requests.find((r) => r.path.endsWith('/message'))!;
    const firstCreate = h.sandbox.requests.find((r) => r.method === 'POST' && r.path.endsWith('/job'))!;
    expect(message.at - firstCreate.at).toBeGreaterThanOrEqual(3_600_000);
    expect(h.clock.now() - started).toBeGreaterThan(3_500_000);
    // Both kinds of POST are logged under the one budget scope; polls are logged apart.
    const scopes = await all<{ scope: string; method: string; n: bigint }>(
      h.db,
      `SELECT scope, method, count(*) AS n FROM request_log WHERE path LIKE '%/job%' GROUP BY ALL ORDER BY scope, method`,
    );
    expect(scopes).toEqual([
      { scope: `agent:docs:unbudgeted@${h.sandbox.url}`, method: 'GET', n: expect.any(BigInt) },
      { scope: `agent:docs@${h.sandbox.url}`, method: 'POST', n: 3n },
    ]);
  });
});

describe('agent_messages in a database written by docpipe 0.1.0', () => {
  it('the upgrade adds the table, keeps the ledger, and a message to a 0.1.0 job updates its row', async () => {
    const h = await startHarness(NOW, { jobs: { pollsToFinish: 1 } });
    try {
      const db = join(h.dir, 'old.duckdb');
      writeFileSync(db, gunzipSync(readFileSync(new URL('../fixtures/db-0.1.0/docpipe.duckdb.gz', import.meta.url))));
      // The API still knows the jobs 0.1.0 submitted (the sandbox numbers them the same way).
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${h.sandbox.url}/v2/agent/docs/job`, {
          method: 'POST',
          headers: { authorization: `Bearer ${SANDBOX_API_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: `existing job ${i}` }),
        });
        expect(response.status).toBe(201);
      }
      const [failed] = await Database.with(db, { readOnly: true }, (d) =>
        d.all<{ prompt_key: string; job_id: string; status: string }>(`SELECT prompt_key, job_id, status FROM agent_jobs WHERE status = 'failed'`),
      );
      expect(failed).toMatchObject({ job_id: expect.stringMatching(/^job_000[123]$/) });
      const file = join(h.dir, 'retry.jsonl');
      writeFileSync(file, `${JSON.stringify({ promptKey: failed!.prompt_key, prompt: 'Rewrite the migration guide, smaller steps [pr]' })}\n`);
      const result = await h.run(['jobs', 'message', '--file', file, ...FAST, '--db', db]);
      expect(result.code, result.stderr).toBe(0);

      const versions = await all<{ version: number }>(db, 'SELECT version FROM schema_version ORDER BY version');
      expect(versions.map((v) => v.version)).toContain(3);
      const jobs = await all<{ prompt_key: string; status: string; pr_link: string | null }>(db, 'SELECT prompt_key, status, pr_link FROM agent_jobs ORDER BY prompt_key');
      expect(jobs).toHaveLength(3);
      expect(jobs.find((j) => j.prompt_key === failed!.prompt_key)).toMatchObject({ status: 'completed', pr_link: expect.stringMatching(/\/pull\//) });
      expect(jobs.filter((j) => j.status === 'completed')).toHaveLength(3);
      expect(await messages(db)).toMatchObject([{ prompt_key: failed!.prompt_key, job_id: failed!.job_id, status: 'sent', status_after: 'active', job_status: 'completed' }]);
    } finally {
      await h.close();
    }
  });
});

describe('docpipe jobs message against an API that answers a message with the job as it was', () => {
  it('follows the job after the message even when the answer says it ended: the message is processed asynchronously', async () => {
    const h = await startHarness(NOW);
    // The job had ended (PR 100). The message's answer shows it so still; then it works for
    // two polls, and ends with a new PR.
    let polls = 0;
    const seen: string[] = [];
    const job = (status: string, pr: number) => ({ id: 'job_1', status, prLink: `https://github.com/acme/docs/pull/${pr}` });
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url?.endsWith('/message') ? 'message' : 'poll'}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.method === 'POST') {
        polls = 0;
        return void res.end(JSON.stringify(job('completed', 100)));
      }
      polls++;
      res.end(JSON.stringify(polls <= 2 ? job('active', 100) : job('completed', 101)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const file = join(h.dir, 'messages.jsonl');
      writeFileSync(file, ['Add the Windows steps', 'Then the macOS steps'].map((prompt) => JSON.stringify({ jobId: 'job_1', prompt })).join('\n') + '\n');
      const result = await h.run(['jobs', 'message', '--file', file, ...FAST, '--base-url', url]);
      expect(result.code, result.stderr).toBe(0);
      // Each message is followed until the job ends from it: the second goes only after that.
      expect(seen).toEqual(['POST message', 'GET poll', 'GET poll', 'GET poll', 'POST message', 'GET poll', 'GET poll', 'GET poll']);
      const rows = await messages(h.db);
      expect(rows.map((r) => [r.prompt, r.status_after, r.job_status, r.pr_link])).toEqual([
        ['Add the Windows steps', 'completed', 'completed', 'https://github.com/acme/docs/pull/101'],
        ['Then the macOS steps', 'completed', 'completed', 'https://github.com/acme/docs/pull/101'],
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await h.close();
    }
  });
});
