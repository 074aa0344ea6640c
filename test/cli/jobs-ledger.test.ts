/** Job ledger states and the one decision per prompt (issue 8, items 12 and 14). */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/load/database.js';
import { killWhenLogged, logLines, startHarness, type Harness } from './harness.js';

const NOW = '2026-03-10T06:00:00Z';
const FAST = ['--poll-interval', '0.5', '--project', 'docs'];

interface Row extends Record<string, unknown> {
  prompt_key: string;
  prompt: string;
  status: string;
  job_id: string | null;
  error: string | null;
  post_started: boolean;
}

async function ledger(h: Harness): Promise<Row[]> {
  const db = await Database.open(h.db);
  try {
    return await db.all<Row>(
      'SELECT prompt_key, prompt, status, job_id, error, post_started_at IS NOT NULL AS post_started FROM agent_jobs ORDER BY prompt_key',
    );
  } finally {
    await db.close();
  }
}

describe('the job ledger', () => {
  let h: Harness;
  let file: string;
  beforeEach(async () => {
    h = await startHarness(NOW, { jobs: { pollsToFinish: 1 } });
    file = join(h.dir, 'prompts.jsonl');
  });
  afterEach(async () => {
    await h.close();
  });

  it('marks a prompt as being posted only just before its POST: one killed while it waited for the budget is submitted later', async () => {
    writeFileSync(file, '{"id":"a","prompt":"First [pr]"}\n{"id":"b","prompt":"Second [pr]"}\n');
    // A real process on the real clock: the second prompt waits an hour for its budget slot.
    await killWhenLogged(h, ['jobs', 'submit', file, '--project', 'docs', '--poll-interval', '0.05', '--concurrency', '1', '--jobs-per-hour', '1'], 'waiting for the hourly budget');
    expect(h.sandbox.jobs()).toHaveLength(1);
    expect(await ledger(h)).toMatchObject([
      { prompt_key: 'a', status: 'completed', post_started: true },
      { prompt_key: 'b', status: 'pending', post_started: false },
    ]);

    // The budget's hour has passed on the test's clock; the waiting prompt was never sent, so it is sent now.
    h.clock.advance(3_600_000);
    const dry = await h.run(['jobs', 'submit', file, ...FAST, '--dry-run']);
    expect(dry.stdout).toMatch(/2 prompts .* 1 would be submitted/);
    const result = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(result.code, result.stderr).toBe(0);
    expect(h.sandbox.jobs().map((j) => j.prompt)).toEqual(['First [pr]', 'Second [pr]']);
    expect((await ledger(h)).map((r) => r.status)).toEqual(['completed', 'completed']);
  });

  it('a prompt killed while it waited out a 429 is not unknown: the 429 proved nothing was created', async () => {
    writeFileSync(file, '{"id":"a","prompt":"Only [pr]"}\n');
    h.sandbox.addFault({ kind: 'rate-limit', match: { method: 'POST' }, retryAfter: '30' });
    await killWhenLogged(h, ['jobs', 'submit', file, '--project', 'docs', '--poll-interval', '0.05'], 'retrying request');
    expect(h.requests('/job', 'POST')).toBe(1);
    expect(await ledger(h)).toMatchObject([{ prompt_key: 'a', status: 'pending', post_started: false }]);
    const result = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(result.code, result.stderr).toBe(0);
    expect(h.sandbox.jobs()).toHaveLength(1);
    expect(await ledger(h)).toMatchObject([{ status: 'completed' }]);
  });

  it('jobs list shows the oldest submission first, to the millisecond (jobs submitted in one second came in the order of their last change)', async () => {
    writeFileSync(file, ['a', 'b', 'c'].map((p) => JSON.stringify({ prompt: `Prompt ${p} [nopr]` })).join('\n'));
    expect((await h.run(['jobs', 'submit', file, ...FAST])).code).toBe(0);
    // Submitted within one second, a, b, c; last changed c, b, a.
    const set = await h.run(['query', '--write', `UPDATE agent_jobs SET
        submitted_at = TIMESTAMPTZ '2026-03-10 06:00:00+00' + INTERVAL (100 * (ascii(substr(prompt, 8, 1)) - 96)) MILLISECOND,
        updated_at = TIMESTAMPTZ '2026-03-10 07:00:00+00' - INTERVAL (ascii(substr(prompt, 8, 1)) - 96) MINUTE`]);
    expect(set.code, set.stderr).toBe(0);
    const listed = await h.run(['jobs', 'list', '--format', 'json']);
    expect(listed.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { prompt: string }).prompt)).toEqual(['Prompt a [nopr]', 'Prompt b [nopr]', 'Prompt c [nopr]']);
  });

  it('warns when an id is reused with different text, and the earlier job stands', async () => {
    writeFileSync(file, '{"id":"fix-1","prompt":"Fix the quickstart [pr]"}\n');
    expect((await h.run(['jobs', 'submit', file, ...FAST])).code).toBe(0);
    writeFileSync(file, '{"id":"fix-1","prompt":"Rewrite the changelog [pr]"}\n');
    const warning = /id 'fix-1' \(line 1\) was used before for different text; the earlier job stands \(job_0001, completed\)/;
    const dry = await h.run(['jobs', 'submit', file, ...FAST, '--dry-run']);
    expect(logLines(dry).some((l) => warning.test(String(l.warning)))).toBe(true);
    const result = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(result.code).toBe(0);
    expect(logLines(result).some((l) => l.event === 'job warning' && warning.test(String(l.message)))).toBe(true);
    expect(h.requests('/job', 'POST')).toBe(1);
    expect(await ledger(h)).toMatchObject([{ prompt_key: 'fix-1', prompt: 'Fix the quickstart [pr]', status: 'completed' }]);
  });

  it('the dry run and the run decide alike: a prompt cut off mid-POST is unknown in both', async () => {
    writeFileSync(file, '{"id":"cut","prompt":"Cut off [pr]"}\n{"id":"new","prompt":"Fresh [pr]"}\n');
    // What a kill -9 between marking the POST and its answer leaves behind.
    const db = await Database.open(h.db);
    await db.run(
      `INSERT INTO agent_jobs (project_id, prompt_key, prompt, status, attempts, polls, post_started_at)
       VALUES ('docs', 'cut', 'Cut off [pr]', 'pending', 1, 0, now())`,
    );
    await db.close();
    const dry = await h.run(['jobs', 'submit', file, ...FAST, '--dry-run']);
    expect(dry.code).toBe(0);
    const line = (key: string) => dry.stdout.split('\n').find((l) => new RegExp(`^\\s*\\d+\\s+${key}\\s`).test(l)) ?? '';
    expect(line('cut')).toMatch(/\bskip\s+unknown\s+cut off while submitting/);
    expect(line('new')).toMatch(/\bsubmit\s+new prompt/);
    expect(dry.stdout).toMatch(/2 prompts .* 1 would be submitted/);

    const result = await h.run(['jobs', 'submit', file, ...FAST]);
    expect(result.code).toBe(1); // an unknown outcome is not a finished job
    expect(h.sandbox.jobs().map((j) => j.prompt)).toEqual(['Fresh [pr]']);
    expect(await ledger(h)).toMatchObject([
      { prompt_key: 'cut', status: 'unknown', error: 'cut off while submitting; outcome unknown' },
      { prompt_key: 'new', status: 'completed' },
    ]);
    // --resubmit-unknown: both say it is submitted again.
    const again = await h.run(['jobs', 'submit', file, ...FAST, '--dry-run', '--resubmit-unknown']);
    expect(again.stdout).toMatch(/2 prompts .* 1 would be submitted/);
  });

  it('a POST another run still has in flight is left to it, even with --resubmit-unknown; once that run is gone, it is unknown', async () => {
    writeFileSync(file, '{"id":"busy","prompt":"Being posted [pr]"}\n');
    // Another run, still going (its process is this one's parent), marked the POST and awaits the answer.
    const db = await Database.open(h.db);
    await db.run(
      `INSERT INTO runs (run_id, command, started_at, status, pid, host) VALUES ('other-run', 'jobs submit', now(), 'running', $pid, $host)`,
      { pid: process.ppid, host: hostname() },
    );
    await db.run(
      `INSERT INTO agent_jobs (project_id, prompt_key, prompt, status, attempts, polls, post_started_at, run_id, updated_at)
       VALUES ('docs', 'busy', 'Being posted [pr]', 'pending', 1, 0, now(), 'other-run', now())`,
    );
    await db.close();
    const dry = await h.run(['jobs', 'submit', file, ...FAST, '--dry-run', '--resubmit-unknown']);
    expect(dry.stdout).toMatch(/\btaken\s+pending\s+being submitted by another run that is still going/);
    expect(dry.stdout).toMatch(/1 prompts .* 0 would be submitted/);
    const result = await h.run(['jobs', 'submit', file, ...FAST, '--resubmit-unknown']);
    expect(result.code, result.stderr).toBe(0);
    // Counted as the other run's, not as pending here.
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!)).toMatchObject({ submitted: 0, taken: 1, counts: { taken: 1 } });
    expect(h.requests('/job', 'POST')).toBe(0);
    expect(await ledger(h)).toMatchObject([{ prompt_key: 'busy', status: 'pending' }]);

    // The other run is gone (killed): the POST was cut off, and --resubmit-unknown submits it again.
    const gone = await Database.open(h.db);
    await gone.run(`UPDATE runs SET pid = 999999 WHERE run_id = 'other-run'`);
    await gone.close();
    const again = await h.run(['jobs', 'submit', file, ...FAST, '--resubmit-unknown']);
    expect(again.code, again.stderr).toBe(0);
    expect(h.requests('/job', 'POST')).toBe(1);
    expect(await ledger(h)).toMatchObject([{ prompt_key: 'busy', status: 'completed' }]);
  });

  it.runIf(process.platform === 'linux')('a POST in flight in another container is left to it while its heartbeat beats; once it stops, it is unknown', async () => {
    writeFileSync(file, '{"id":"busy","prompt":"Being posted [pr]"}\n');
    // A batch in a pod (pid 1 of a host name never seen again) marked the POST and was killed.
    const pod = { pid: 1, host: `pod-${process.pid}`, start: '4242.0badc0de.4026531999' };
    const db = await Database.open(h.db);
    await db.run(
      `INSERT INTO runs (run_id, command, started_at, status, pid, host, process_start) VALUES ('pod-run', 'jobs submit', now(), 'running', $pid, $host, $start)`,
      pod,
    );
    await db.run(
      `INSERT INTO agent_jobs (project_id, prompt_key, prompt, status, attempts, polls, post_started_at, run_id, updated_at)
       VALUES ('docs', 'busy', 'Being posted [pr]', 'pending', 1, 0, now(), 'pod-run', now())`,
    );
    await db.close();
    const alive = join(`${h.db}.spool`, 'alive', `${pod.pid}+${pod.start}`);
    mkdirSync(dirname(alive), { recursive: true });
    writeFileSync(alive, '');
    const during = await h.run(['jobs', 'submit', file, ...FAST, '--resubmit-unknown']);
    expect(during.code, during.stderr).toBe(0);
    expect(JSON.parse(during.stdout.trim().split('\n').at(-1)!)).toMatchObject({ submitted: 0, taken: 1 });
    expect(h.requests('/job', 'POST')).toBe(0);
    // Its heartbeat stopped 6 minutes ago: the POST was cut off, and --resubmit-unknown submits it again.
    const stopped = new Date(Date.now() - 6 * 60_000);
    utimesSync(alive, stopped, stopped);
    const after = await h.run(['jobs', 'submit', file, ...FAST, '--resubmit-unknown']);
    expect(after.code, after.stderr).toBe(0);
    expect(h.requests('/job', 'POST')).toBe(1);
    expect(await ledger(h)).toMatchObject([{ prompt_key: 'busy', status: 'completed' }]);
  });

  // Not a timed test (a loaded machine took 8 s, a quiet one under 5): a read of the ledger per
  // prompt would take minutes and end at the test's timeout.
  it('dry-runs 100,000 prompts, deciding each against the ledger, without a request', async () => {
    const txt = join(h.dir, 'many.txt');
    writeFileSync(txt, Array.from({ length: 100_000 }, (_, i) => `Review page /docs/section-${i} for broken links [pr]`).join('\n'));
    // A ledger that already knows some of them.
    writeFileSync(join(h.dir, 'few.txt'), Array.from({ length: 3 }, (_, i) => `Review page /docs/section-${i} for broken links [pr]`).join('\n'));
    expect((await h.run(['jobs', 'submit', join(h.dir, 'few.txt'), ...FAST])).code).toBe(0);
    const result = await h.run(['jobs', 'submit', txt, ...FAST, '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/100000 prompts .* 99997 would be submitted; no request made/);
  });
});
