import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOB_OUTCOMES, outcomeOf, type JobOutcome } from '../../src/sandbox/agent-jobs.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { NOW, authHeaders, getJson, postJson } from './helpers.js';

interface Job {
  id: string;
  status: string;
  source: { repository: string; ref: string | null };
  model: string;
  prLink: string | null;
  createdAt: string;
  archivedAt: string | null;
}

describe('sandbox agent jobs', () => {
  let sandbox: Sandbox;
  let now: number;

  beforeEach(async () => {
    now = NOW;
    sandbox = await startSandbox({ now: () => now });
  });
  afterEach(async () => {
    await sandbox.close();
  });

  const create = async (prompt: string, project = 'acme'): Promise<Job> => {
    const { status, body } = await postJson(sandbox, `/v2/agent/${project}/job`, { prompt });
    expect(status).toBe(201);
    return body as Job;
  };
  const poll = async (id: string, project = 'acme'): Promise<Job> => {
    const { status, body } = await getJson(sandbox, `/v2/agent/${project}/job/${id}`);
    expect(status).toBe(200);
    return body as Job;
  };

  it('creates an active job shaped like the API’s AgentJob', async () => {
    const job = await create('Document the export command');
    expect(job).toEqual({
      id: 'job_0001',
      status: 'active',
      source: { repository: 'https://github.com/acme/docs', ref: 'docpipe/job_0001' },
      model: expect.stringMatching(/^claude-/) as unknown as string,
      prLink: null,
      createdAt: new Date(NOW).toISOString(),
      archivedAt: null,
    });
  });

  it.each<[string, string, 'pr' | 'none']>([
    ['[pr] add a page on retries', 'completed', 'pr'],
    ['[nopr] check the links', 'completed', 'none'],
    ['[fail] rewrite everything', 'failed', 'none'],
    ['[archive] old request', 'archived', 'none'],
  ])('moves %s from active to %s after pollsToFinish GETs', async (prompt, finalStatus, pr) => {
    const { id } = await create(prompt);
    now += 60_000;
    const first = await poll(id);
    expect(first.status).toBe('active');
    expect(first.prLink).toBeNull();
    const second = await poll(id);
    expect(second.status).toBe(finalStatus);
    if (pr === 'pr') expect(second.prLink).toMatch(/^https:\/\/github\.com\/acme\/docs\/pull\/\d+$/);
    else expect(second.prLink).toBeNull();
    if (finalStatus === 'archived') expect(second.archivedAt).toBe(new Date(now).toISOString());
    else expect(second.archivedAt).toBeNull();
    // Terminal is terminal: more polls change nothing.
    expect(await poll(id)).toEqual(second);
    expect(sandbox.jobs()[0]).toMatchObject({ id, status: finalStatus, polls: 3, prompt });
  });

  it('keeps a [never] job active however often it is polled', async () => {
    const { id } = await create('[never] hang');
    for (let i = 0; i < 6; i++) expect((await poll(id)).status).toBe('active');
  });

  it('follows the pollsToFinish option', async () => {
    const quick = await startSandbox({ now: () => NOW, jobs: { pollsToFinish: 1 } });
    try {
      const created = await postJson(quick, '/v2/agent/acme/job', { prompt: '[pr] quick' });
      const id = (created.body as Job).id;
      expect(((await getJson(quick, `/v2/agent/acme/job/${id}`)).body as Job).status).toBe('completed');
    } finally {
      await quick.close();
    }
  });

  it('answers 404 for an unknown id or another project’s job', async () => {
    const { id } = await create('[pr] x');
    for (const path of ['/v2/agent/acme/job/job_9999', `/v2/agent/globex/job/${id}`]) {
      const { status, body } = await getJson(sandbox, path);
      expect(status).toBe(404);
      expect(body).toEqual({ error: 'Job not found' });
    }
    const message = await postJson(sandbox, '/v2/agent/acme/job/job_9999/message', { prompt: 'more' });
    expect(message.status).toBe(404);
  });

  it.each([
    ['an empty prompt', { prompt: '' }],
    ['a missing prompt', { text: 'hi' }],
    ['a non-string prompt', { prompt: 42 }],
    ['invalid JSON', '{"prompt": '],
    ['a JSON array', '[]'],
  ])('rejects %s with a 400 and creates nothing', async (_name, body) => {
    const res = await postJson(sandbox, '/v2/agent/acme/job', body);
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty('error');
    expect(sandbox.jobs()).toEqual([]);
  });

  it('requires the key for jobs too', async () => {
    const res = await fetch(`${sandbox.url}/v2/agent/acme/job`, { method: 'POST', body: JSON.stringify({ prompt: 'x' }) });
    expect(res.status).toBe(401);
    expect(sandbox.jobs()).toEqual([]);
  });

  it('reactivates a job on a follow-up message and resets its polls', async () => {
    const { id } = await create('[nopr] first pass');
    await poll(id);
    expect((await poll(id)).status).toBe('completed');
    const res = await postJson(sandbox, `/v2/agent/acme/job/${id}/message`, { prompt: '[pr] now open a PR' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'active', prLink: null });
    expect(sandbox.jobs()[0]?.polls).toBe(0);
    expect((await poll(id)).status).toBe('active');
    const done = await poll(id);
    expect(done.status).toBe('completed');
    expect(done.prLink).toMatch(/\/pull\/\d+$/);
    const empty = await postJson(sandbox, `/v2/agent/acme/job/${id}/message`, { prompt: '' });
    expect(empty.status).toBe(400);
  });

  it('lists every created job in order, with unique, deterministic ids and PR numbers', async () => {
    const prompts = ['[pr] a', '[fail] b', '[pr] c'];
    const ids: string[] = [];
    for (const prompt of prompts) ids.push((await create(prompt)).id);
    expect(new Set(ids).size).toBe(3);
    expect(sandbox.jobs().map((j) => [j.id, j.projectId, j.prompt, j.status])).toEqual(
      prompts.map((p, i) => [ids[i], 'acme', p, 'active']),
    );
    const links: (string | null)[] = [];
    for (const id of ids) {
      await poll(id);
      links.push((await poll(id)).prLink);
    }
    expect(links[0]).not.toBeNull();
    expect(links[1]).toBeNull();
    expect(links[2]).not.toBe(links[0]);

    const fresh = await startSandbox({ now: () => NOW });
    try {
      const again: string[] = [];
      for (const prompt of prompts) {
        const res = await fetch(`${fresh.url}/v2/agent/acme/job`, {
          method: 'POST',
          headers: authHeaders(fresh),
          body: JSON.stringify({ prompt }),
        });
        again.push(((await res.json()) as Job).id);
      }
      expect(again).toEqual(ids);
    } finally {
      await fresh.close();
    }
  });
});

describe('outcomeOf', () => {
  it('honours markers over the hash', () => {
    expect(outcomeOf('[PR] shout')).toBe('completed-pr');
    expect(outcomeOf('[fail] and [pr]')).toBe('failed');
    expect(outcomeOf('[never] and [fail]')).toBe('never');
  });

  it('spreads unmarked prompts roughly 60/15/15/10, deterministically', () => {
    const counts = new Map<JobOutcome, number>(JOB_OUTCOMES.map((o) => [o, 0]));
    const n = 4000;
    for (let i = 0; i < n; i++) {
      const outcome = outcomeOf(`Fix the docs for feature number ${i}`);
      counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
    }
    const share = (o: JobOutcome): number => (counts.get(o) ?? 0) / n;
    expect(share('completed-pr')).toBeCloseTo(0.6, 1);
    expect(share('completed-no-pr')).toBeCloseTo(0.15, 1);
    expect(share('failed')).toBeCloseTo(0.15, 1);
    expect(share('archived')).toBeCloseTo(0.1, 1);
    expect(share('never')).toBe(0);
    expect(outcomeOf('Document webhooks')).toBe(outcomeOf('Document webhooks'));
  });
});
