/** Odd answers from the API (issue 8, items 9–11): each gets a clear, correct response. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getAgentJob } from '../../src/api/agent.js';
import { HttpClient } from '../../src/api/http-client.js';
import { DataError } from '../../src/core/errors.js';
import { Database } from '../../src/load/database.js';
import { SANDBOX_API_KEY } from '../../src/sandbox/server.js';
import { logLines, startHarness, summaryOf, type Harness } from './harness.js';

const NOW = '2026-03-10T06:00:00Z';
const FAST = ['--poll-interval', '0.5', '--project', 'docs'];

async function rows<T extends Record<string, unknown>>(h: Harness, sql: string): Promise<T[]> {
  const db = await Database.open(h.db);
  try {
    return await db.all<T>(sql);
  } finally {
    await db.close();
  }
}

const jobRows = (h: Harness) =>
  rows<{ prompt: string; status: string; pr_link: string | null; error: string | null; flags: string | null; post_started: boolean }>(
    h,
    'SELECT prompt, status, pr_link, error, flags, post_started_at IS NOT NULL AS post_started FROM agent_jobs ORDER BY prompt',
  );

describe('odd answers from the API', () => {
  let h: Harness;
  let file: string;
  beforeEach(async () => {
    h = await startHarness(NOW, { jobs: { pollsToFinish: 2 } });
    file = join(h.dir, 'prompts.txt');
  });
  afterEach(async () => {
    await h.close();
  });

  describe('a 2xx body that carries error (item 9)', () => {
    it('is an error showing the server text, on a job poll', async () => {
      h.sandbox.addFault({ kind: 'body', match: { method: 'GET', path: '/job/' }, body: '{"error":"Job store unavailable"}' });
      const job = (await fetch(`${h.sandbox.url}/v2/agent/docs/job`, {
        method: 'POST',
        headers: { authorization: `Bearer ${SANDBOX_API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'x [pr]' }),
      }).then((r) => r.json())) as { id: string };
      const client = new HttpClient({ apiKey: SANDBOX_API_KEY, baseUrl: h.sandbox.url, minBackoffMs: 1, maxBackoffMs: 2 });
      const poll = getAgentJob(client, 'docs', job.id);
      await expect(poll).rejects.toThrow(DataError);
      await expect(getAgentJob(client, 'docs', job.id)).resolves.toMatchObject({ id: job.id });
      h.sandbox.addFault({ kind: 'body', match: { method: 'GET', path: '/job/' }, body: '{"error":"Job store unavailable"}' });
      await expect(getAgentJob(client, 'docs', job.id)).rejects.toThrow(/HTTP 200 with an error: Job store unavailable/);
    });

    it('is logged with the server text during a batch, and never stored as an empty active job', async () => {
      writeFileSync(file, 'Fix the quickstart [pr]\n');
      h.sandbox.addFault({ kind: 'body', match: { method: 'GET', path: '/job/' }, body: '{"error":"Job store unavailable"}' });
      const result = await h.run(['jobs', 'submit', file, ...FAST]);
      expect(result.code).toBe(0);
      const warning = logLines(result).find((l) => l.event === 'job warning');
      expect(warning).toMatchObject({ prompt: 'Fix the quickstart [pr]', message: expect.stringMatching(/Job store unavailable/) });
      expect(await jobRows(h)).toMatchObject([{ status: 'completed', pr_link: expect.stringMatching(/\/pull\/\d+$/) }]);
    });

    it('shows the server text inert on a terminal: control characters escaped in the summary and in status', async () => {
      const text = '\u001b]0;PWNED\u0007\u001b[31mRED\r\nlevel=info fake line \u202e';
      h.sandbox.addFault({ kind: 'body', status: 403, match: { path: '/visitors' }, body: JSON.stringify({ error: text }), times: Infinity });
      const result = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-02', '--log-format', 'text']);
      expect(result.code).toBe(1);
      const status = await h.run(['status', '--log-format', 'text']);
      for (const out of [result.stdout, result.stderr, status.stdout]) {
        // eslint-disable-next-line no-control-regex -- the test looks for them
        expect(out).not.toMatch(/[\u001b\u0007\r\u202e]/);
        expect(out).not.toMatch(/^level=info fake/m);
      }
      expect(result.stdout).toContain('\\x1b]0;PWNED\\x07\\x1b[31mRED');
      expect(status.stdout).toContain('\\x1b]0;PWNED');
    });

    it('fails the window of an export with the server text', async () => {
      h.sandbox.addFault({ kind: 'body', match: { path: '/visitors' }, body: '{"error":"Analytics warehouse offline"}', times: Infinity });
      const result = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-02']);
      expect(result.code).toBe(1);
      expect(logLines(result).find((l) => l.event === 'window failed')).toMatchObject({ error: expect.stringMatching(/Analytics warehouse offline/) });
      expect(h.requests('/visitors')).toBe(1); // not retried: it would only say the same
    });
  });

  it('leaves the rest of a series whose windows drift on every walk (empty pages that claim more) after 5 in a row, goes on with the others, and ends with exit 75', async () => {
    const empty = '{"totals":{"human":10,"ai":5,"total":12},"visitors":[],"hasMore":true}';
    h.sandbox.addFault({ kind: 'body', match: { path: '/bad/visitors' }, body: empty, times: Infinity });
    // The windows of a healthy project take turns with the broken one's.
    const result = await h.run(['export', 'visitors', '--project', 'docs,bad', '--from', '2026-03-01', '--to', '2026-03-09']);
    expect(result.code).toBe(75);
    expect(summaryOf(result)).toMatchObject({
      stopped: 'failing',
      windowsLoaded: 8 + 5,
      windowsLeft: 3,
      stopMessage: expect.stringMatching(
        /^5 day windows of visitors for project bad in a row still drifted after every re-walk \(last: data drifted during 4 walks; loaded the last walk: empty page with hasMore at offset 0\); stopped to keep/,
      ),
    });
    // Four walks of one request a window of bad, and no more.
    expect(h.requests('/bad/visitors')).toBe(20);
    // A series with no window left after its fifth is not stopped: all is loaded, with warnings.
    h.sandbox.addFault({ kind: 'body', match: { path: '/few/visitors' }, body: empty, times: Infinity });
    const few = await h.run(['export', 'visitors', '--project', 'few', '--from', '2026-03-01', '--to', '2026-03-06']);
    expect(few.code).toBe(0);
    expect(summaryOf(few)).toMatchObject({ stopped: null, windowsLoaded: 5, windowsLeft: 0, warnings: 5 });
    // Once the API answers properly, the next run walks the windows left.
    h.sandbox.clearFaults();
    const healthy = await h.run(['export', 'visitors', '--project', 'docs,bad', '--from', '2026-03-01', '--to', '2026-03-09']);
    expect(healthy.code).toBe(0);
    expect(summaryOf(healthy)).toMatchObject({ windowsLoaded: 3, stopped: null });
  });

  it('counts drifting windows per grain too: a sync of weeks and days whose weeks drift gives the weeks up, the days going on', async () => {
    const empty = '{"totals":{"human":10,"ai":5,"total":12},"visitors":[],"hasMore":true}';
    h.sandbox.addFault({ kind: 'body', match: { path: '/visitors', days: 7 }, body: empty, times: Infinity });
    const file = join(h.dir, 'grains.json');
    writeFileSync(file, JSON.stringify({ projects: ['docs'], metrics: ['visitors'], start: '2026-01-05', windows: ['week', 'day'], requestsPerHour: 100000 }));
    const result = await h.run(['sync', file]);
    expect(result.code).toBe(75);
    // 9 closed weeks (5 loaded with their warning, 4 left) and 64 closed days, taking turns.
    expect(summaryOf(result)).toMatchObject({
      stopped: 'failing',
      windowsLoaded: 5 + 64,
      windowsLeft: 4,
      stopMessage: expect.stringMatching(/^5 week windows of visitors for project docs in a row still drifted after every re-walk/),
    });
  });

  describe('job statuses (item 10)', () => {
    // `rejected` is also docpipe's own word for a prompt the API refused (no job): a job the API calls so is not over.
    it.each(['cancelled', 'COMPLETED', 'rejected'])('keeps the unknown status %s verbatim; a timeout never overwrites it', async (status) => {
      writeFileSync(file, 'Odd status [pr]\n');
      h.sandbox.addFault({ kind: 'patch', match: { method: 'GET', path: '/job/' }, patch: { status }, times: Infinity });
      const result = await h.run(['jobs', 'submit', file, ...FAST, '--timeout', '20']);
      expect(result.code).toBe(1);
      expect(await jobRows(h)).toMatchObject([{ status, error: `still ${status} after 20 s` }]);
      expect(logLines(result).filter((l) => l.event === 'job warning' && String(l.message).includes(`'${status}'`))).toHaveLength(1);
      const again = await h.run(['jobs', 'submit', file, ...FAST, '--timeout', '20']);
      expect(again.code).toBe(1);
      expect(h.requests('/job', 'POST')).toBe(1);
      expect(await jobRows(h)).toMatchObject([{ status }]);
    });

    it.each([
      [401, /the API rejected the key \(HTTP 401[^)]*\): check --api-key-file/],
      [403, /the API rejected the key \(HTTP 403.*POST write/],
      [404, /the API does not know project 'docs' \(HTTP 404.*check --project/],
    ])('a %d on POST stops the batch with a clear message, leaving the prompts pending', async (status, message) => {
      writeFileSync(file, 'First [pr]\nSecond [pr]\nThird [pr]\n');
      h.sandbox.addFault({ kind: 'server-error', status, match: { method: 'POST' }, times: Infinity });
      const result = await h.run(['jobs', 'submit', file, ...FAST, '--concurrency', '1']);
      expect(result.code).toBe(1);
      expect(h.requests('/job', 'POST')).toBe(1);
      expect(summaryOf(result)).toMatchObject({ stopped: 'fatal', message: expect.stringMatching(message) });
      const text = await h.run(['jobs', 'submit', file, ...FAST, '--concurrency', '1', '--log-format', 'text']);
      expect(text.stdout).toMatch(message);
      expect(h.requests('/job', 'POST')).toBe(2);
      const ledger = await jobRows(h);
      expect(ledger.map((r) => r.status)).toEqual(['pending']);
      expect(ledger[0]).toMatchObject({ post_started: false });
      // Nothing was created, so a later run submits every prompt.
      h.sandbox.clearFaults();
      const later = await h.run(['jobs', 'submit', file, ...FAST]);
      expect(later.code).toBe(0);
      expect(h.sandbox.jobs()).toHaveLength(3);
    });

    it('a POST answered without a job id is unknown, and is posted again only with --resubmit-unknown', async () => {
      writeFileSync(file, 'No id [pr]\n');
      h.sandbox.addFault({ kind: 'patch', match: { method: 'POST', path: '/job' }, patch: { id: null, status: 'queued' } });
      const result = await h.run(['jobs', 'submit', file, ...FAST]);
      expect(result.code).toBe(1);
      expect(await jobRows(h)).toMatchObject([{ status: 'unknown', error: 'the API returned a job without an id (status queued)' }]);
      // A job may exist: the next run does not post it again...
      const again = await h.run(['jobs', 'submit', file, ...FAST]);
      expect(again.code).toBe(1);
      expect(h.requests('/job', 'POST')).toBe(1);
      // ...even when an earlier release left the API's status on the row.
      const db = await Database.open(h.db);
      await db.run(`UPDATE agent_jobs SET status = 'queued'`);
      await db.close();
      expect((await h.run(['jobs', 'submit', file, ...FAST])).code).toBe(1);
      expect(h.requests('/job', 'POST')).toBe(1);
      const resubmitted = await h.run(['jobs', 'submit', file, ...FAST, '--resubmit-unknown']);
      expect(resubmitted.code).toBe(0);
      expect(h.requests('/job', 'POST')).toBe(2);
    });

    it('a POST answered with the job id of another prompt is warned about, naming both', async () => {
      writeFileSync(file, 'First [pr]\n');
      expect((await h.run(['jobs', 'submit', file, ...FAST])).code).toBe(0);
      const [first] = h.sandbox.jobs();
      writeFileSync(file, 'First [pr]\nSecond [pr]\n');
      h.sandbox.addFault({ kind: 'patch', match: { method: 'POST', path: '/job' }, patch: { id: first!.id } });
      const result = await h.run(['jobs', 'submit', file, ...FAST, '--log-format', 'json']);
      expect(result.code, result.stderr).toBe(0);
      const warnings = logLines(result).filter((l) => l.event === 'job warning');
      expect(warnings).toHaveLength(1);
      expect(String(warnings[0]!.message)).toMatch(new RegExp(`job ${first!.id}, the job of prompt sha256:[0-9a-f]{16} too`));
      expect(warnings[0]!.prompt).toBe('Second [pr]');
    });

    it('a job whose status the API calls pending, as docpipe calls a prompt not yet answered, is followed, not taken for cut off', async () => {
      writeFileSync(file, 'Pending job [pr]\n');
      // The POST answered with a job in the API's own `pending`, and the run was stopped before
      // its first poll: the row holds the job's id and status, and its POST mark.
      h.sandbox.addFault({ kind: 'patch', match: { method: 'POST', path: '/job' }, patch: { status: 'pending' } });
      h.sandbox.addFault({ kind: 'server-error', status: 404, match: { method: 'GET', path: '/job/' } });
      expect((await h.run(['jobs', 'submit', file, ...FAST])).code).toBe(1);
      const db = await Database.open(h.db);
      await db.run(`UPDATE agent_jobs SET status = 'pending', error = NULL`);
      await db.close();
      expect(await jobRows(h)).toMatchObject([{ status: 'pending', post_started: true }]);
      const resumed = await h.run(['jobs', 'submit', file, ...FAST, '--resubmit-unknown']);
      expect(resumed.code).toBe(0);
      expect(h.requests('/job', 'POST')).toBe(1);
      expect(await jobRows(h)).toMatchObject([{ status: 'completed', pr_link: expect.stringMatching(/\/pull\/\d+$/) }]);
    });

    it('flags a prLink that is not a URL instead of storing it', async () => {
      writeFileSync(file, 'Bad link [pr]\n');
      h.sandbox.addFault({ kind: 'patch', match: { method: 'GET', path: '/job/' }, patch: { prLink: 'see the dashboard' }, times: Infinity });
      const result = await h.run(['jobs', 'submit', file, ...FAST]);
      expect(result.code).toBe(0);
      expect(await jobRows(h)).toMatchObject([{ status: 'completed', pr_link: null, flags: 'pr_link_not_url' }]);
      expect(logLines(result).some((l) => l.event === 'job warning' && /not a URL.*see the dashboard/.test(String(l.message)))).toBe(true);
    });

    it('never lets a later null erase a stored prLink', async () => {
      writeFileSync(file, 'Link then none [nopr]\n');
      // The first poll shows a link; the job then completes with prLink null.
      h.sandbox.addFault({ kind: 'patch', match: { method: 'GET', path: '/job/' }, patch: { prLink: 'https://github.com/acme/docs/pull/9' } });
      const result = await h.run(['jobs', 'submit', file, ...FAST]);
      expect(result.code).toBe(0);
      expect(h.requests('/job/', 'GET')).toBe(2);
      expect(await jobRows(h)).toMatchObject([{ status: 'completed', pr_link: 'https://github.com/acme/docs/pull/9' }]);
    });
  });

  it('loads a page that JSON.parse takes and DuckDB\'s reader does not (a lone surrogate escape, a key given twice), its counts beyond range still out of range', async () => {
    // A path cut in the middle of a character, a row that names its path twice (JSON.parse
    // keeps the last), and counts no double holds: the page is rewritten as JSON.parse read it,
    // its numbers as written.
    const body =
      '{"totals":{"human":3,"ai":0,"total":3},"visitors":[' +
      '{"path":"/caf\\ud83d","human":1,"ai":0,"total":1},' +
      '{"path":"/first","path":"/second","human":2,"ai":0,"total":2},' +
      '{"path":"/inf","human":1e400,"ai":1,"total":2},' +
      '{"path":"/big","human":12345678901234567890,"ai":1,"total":2}],"hasMore":false}';
    h.sandbox.addFault({ kind: 'body', match: { path: '/visitors' }, body, times: 1 });
    const result = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-03']);
    expect(result.code, result.stdout).toBe(0);
    expect(summaryOf(result)).toMatchObject({ windowsLoaded: 2, windowsFailed: 0 });
    // The window the odd page came in (the most recent first): its rows as JSON.parse read them.
    expect(await rows(h, `SELECT path, human, flags FROM page_visitors WHERE window_start = '2026-03-02' ORDER BY path`)).toEqual([
      { path: '/big', human: null, flags: 'count_out_of_range' },
      { path: '/caf\uFFFD', human: 1n, flags: null },
      { path: '/inf', human: null, flags: 'count_out_of_range' },
      { path: '/second', human: 2n, flags: null },
    ]);
    expect((await h.run(['doctor'])).code).toBe(0);
  });

  it('stores counts beyond 64 bits, infinite or null as NULL with a flag, and loads the window (item 11)', async () => {
    const body =
      '{"totals":{"human":1e400,"ai":3,"total":4},"visitors":[' +
      '{"path":"/huge","human":18446744073709551616,"ai":1,"total":2},' +
      '{"path":"/inf","human":1e999,"ai":1,"total":2},' +
      '{"path":"/null","human":null,"ai":1,"total":1},' +
      '{"path":"/ok","human":2,"ai":1,"total":2}],"hasMore":false}';
    h.sandbox.addFault({ kind: 'body', match: { path: '/visitors' }, body, times: Infinity });
    const result = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-03']);
    expect(result.code).toBe(0);
    expect(summaryOf(result)).toMatchObject({ windowsLoaded: 2, windowsFailed: 0 });
    const loaded = await rows(h, `SELECT path, human, flags FROM page_visitors WHERE window_start = '2026-03-01' ORDER BY path`);
    expect(loaded).toEqual([
      { path: '/huge', human: null, flags: 'count_out_of_range' },
      { path: '/inf', human: null, flags: 'count_out_of_range' },
      { path: '/null', human: null, flags: 'count_missing' },
      { path: '/ok', human: 2n, flags: null },
    ]);
    expect(await rows(h, 'SELECT DISTINCT human, ai, total, flags FROM visitor_totals')).toEqual([{ human: null, ai: 3n, total: 4n, flags: 'count_out_of_range' }]);
    const [window] = await rows<{ warnings: string[] }>(h, `SELECT warnings FROM loaded_windows WHERE window_start = '2026-03-01'`);
    expect(window?.warnings).toEqual(['1 row count_missing', '2 rows count_out_of_range', 'totals count_out_of_range']);
  });
});
