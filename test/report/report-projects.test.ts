/**
 * `docpipe report` over several projects, each loaded differently: every project's section
 * shows its own days, top pages, weeks and jobs (the report reads each kind of data once for
 * all its projects and parts it by project), whatever projects are asked for and in what order.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_NOW, select } from '../cli/analytics-fixture.js';
import { startHarness, summaryOf, type Harness } from '../cli/harness.js';

const FROM = '2026-02-16';
const TO = '2026-03-10';

/** How each project is loaded, and what its report must then show. */
const PROJECTS = {
  // Every week of the range, and two jobs that open a pull request.
  alpha: { weeks: [['2026-02-16', '2026-03-16']], prompts: ['Add a quickstart section [pr]', 'Document the limits [pr]'], jobs: 'Success rate 100% of 2 finished jobs', top: { start: '2026-03-02', end: '2026-03-09', grain: 'week' } },
  // One week only, and a job that fails.
  beta: { weeks: [['2026-02-23', '2026-03-02']], prompts: ['Rewrite the migration guide [fail]'], jobs: 'Success rate 0% of 1 finished jobs', top: { start: '2026-02-23', end: '2026-03-02', grain: 'week' } },
  // Days only: its top pages are the newest complete day's; no week, no job.
  gamma: { weeks: [], prompts: [], jobs: 'No finished agent job yet', top: { start: '2026-03-09', end: '2026-03-10', grain: 'day' } },
} as const;
type Project = keyof typeof PROJECTS;
const NAMES = Object.keys(PROJECTS) as Project[];

let h: Harness;

async function ok(args: string[]): Promise<void> {
  const result = await h.run([...args, '--requests-per-hour', '100000']);
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
}

/** Writes the report of `args` and returns its page. */
async function report(name: string, args: string[] = []): Promise<string> {
  const out = join(h.dir, `${name}.html`);
  const result = await h.run(['report', '--from', FROM, '--to', TO, '--out', out, ...args]);
  expect(result.code, result.stderr).toBe(0);
  return readFileSync(out, 'utf8');
}

/** The project's section of a page. */
function sectionOf(html: string, project: string): string {
  const section = new RegExp(`<section class="project" data-project="${project}">[\\s\\S]*?</section>`).exec(html)?.[0];
  expect(section, project).toBeDefined();
  return section!;
}

/** The cells of the table under one of the section's charts, row by row. */
function tableOf(section: string, chart: string): string[][] {
  const figure = new RegExp(`<figure class="chart" id="[^"]*-${chart}"[\\s\\S]*?</figure>`).exec(section)?.[0] ?? '';
  return [...figure.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].slice(1).map((m) => [...m[1]!.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((c) => c[1]!));
}

const int = (v: unknown): string => (v === null ? '–' : Number(v).toLocaleString('en-US'));

/** What the project's section must show, read from the views one project at a time, as an analyst would. */
async function expected(project: Project) {
  const days = await select(h, `SELECT strftime(day, '%Y-%m-%d') AS day, visitors_human, visitors_ai, visitors_total FROM daily_site
    WHERE project_id = '${project}' AND day >= '${FROM}' AND day < '${TO}' ORDER BY day DESC LIMIT 7`);
  const { start, end } = PROJECTS[project].top;
  const top = await select(h, `SELECT path, visitors FROM top_pages_within(DATE '${FROM}', DATE '${TO}')
    WHERE project_id = '${project}' AND window_start = '${start}' AND window_end = '${end}' ORDER BY rank`);
  const weeks = await select(h, `SELECT strftime(week_start, '%Y-%m-%d') AS week, visitors_total FROM weekly_site
    WHERE project_id = '${project}' AND week_end > '${FROM}' AND week_start < '${TO}' ORDER BY week_start`);
  const jobs = await select(h, `SELECT status, count(*) AS n, count(pr_link) AS pr FROM agent_jobs WHERE project_id = '${project}' GROUP BY status ORDER BY n DESC, status`);
  return {
    days: days.map((r) => [String(r.day), int(r.visitors_human), int(r.visitors_ai), int(r.visitors_total)]),
    top: top.map((r) => [String(r.path), int(r.visitors)]),
    weeks: new Map(weeks.map((r) => [String(r.week), int(r.visitors_total)])),
    jobs: jobs.map((r) => [String(r.status), String(r.n), String(r.pr)]),
  };
}

/** Checks the project's section of the page against its own data. */
async function expectOwnData(html: string, project: Project): Promise<void> {
  const section = sectionOf(html, project);
  const own = await expected(project);
  expect(own.days, project).toHaveLength(7);
  expect(tableOf(section, 'visitors'), project).toEqual(own.days);
  const { start, end, grain } = PROJECTS[project].top;
  expect(section, project).toContain(`Top pages of ${start} .. ${end} (${grain} window)`);
  expect(own.top, project).toHaveLength(10);
  expect(tableOf(section, 'top-pages').map((r) => [r[1], r[2]]), project).toEqual(own.top);
  // The project's weekly windows in the range (alpha's running week too), the whole weeks of the range without one as missing.
  const weeks = tableOf(section, 'week-over-week');
  const starts = [...new Set(['2026-02-16', '2026-02-23', '2026-03-02', ...own.weeks.keys()])].sort();
  expect(weeks.map((w) => w[0]!.slice(0, 10)), project).toEqual(starts);
  for (const week of weeks) {
    const start = week[0]!.slice(0, 10);
    expect(week[1], `${project} ${start}`).toBe(own.weeks.get(start) ?? '–');
    if (!own.weeks.has(start)) expect(week[4], `${project} ${start}`).toMatch(/no weekly window loaded/);
  }
  expect(tableOf(section, 'jobs'), project).toEqual(own.jobs);
  expect(section, project).toContain(PROJECTS[project].jobs);
}

beforeAll(async () => {
  h = await startHarness(FIXTURE_NOW, { site: { paths: 30 }, jobs: { pollsToFinish: 1 } });
  for (const metric of ['visitors', 'views']) {
    await ok(['export', metric, '--from', FROM, '--to', '2026-03-11', '--project', NAMES.join(',')]);
    for (const project of NAMES) {
      for (const [from, to] of PROJECTS[project].weeks) await ok(['export', metric, '--from', from, '--to', to, '--window', 'week', '--project', project]);
    }
  }
  for (const project of NAMES) {
    if (PROJECTS[project].prompts.length === 0) continue;
    const file = join(h.dir, `${project}-prompts.txt`);
    writeFileSync(file, PROJECTS[project].prompts.join('\n') + '\n');
    await ok(['jobs', 'submit', file, '--poll-interval', '0.1', '--project', project]);
  }
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('docpipe report over several projects', () => {
  it('the projects differ, so that one shown in another\'s place would be seen', async () => {
    const [alpha, beta, gamma] = await Promise.all(NAMES.map((p) => expected(p)));
    expect(alpha!.days).not.toEqual(beta!.days);
    expect(beta!.days).not.toEqual(gamma!.days);
    expect(alpha!.top).not.toEqual(beta!.top);
    expect(alpha!.jobs).not.toEqual(beta!.jobs);
  });

  it('every project\'s section shows its own days, top pages, weeks and jobs', async () => {
    const result = await h.run(['report', '--from', FROM, '--to', TO, '--out', join(h.dir, 'all.html')]);
    expect(result.code, result.stderr).toBe(0);
    expect(summaryOf(result)).toMatchObject({ projects: NAMES });
    const html = readFileSync(join(h.dir, 'all.html'), 'utf8');
    for (const project of NAMES) await expectOwnData(html, project);
  });

  it('with --project, in the order asked: each section is still its own project\'s', async () => {
    const html = await report('gamma-alpha', ['--project', 'gamma,alpha']);
    expect([...html.matchAll(/data-project="([^"]*)"/g)].map((m) => m[1])).toEqual(['gamma', 'alpha']);
    await expectOwnData(html, 'gamma');
    await expectOwnData(html, 'alpha');
    // A project the database does not hold has an empty section, not another's data.
    const none = sectionOf(await report('none-beta', ['--project', 'none,beta']), 'none');
    expect(none).toContain('No day windows loaded');
    expect(none).toContain('No complete window loaded yet');
    expect(tableOf(none, 'jobs')).toEqual([]);
  });
});
