/** The views and ready-made queries over the feedback, searches and assistant tables. */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, queryDb } from './harness.js';

const jsonRows = (stdout: string): Record<string, unknown>[] =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('views over the other endpoints', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('2026-03-10T06:00:00Z', { site: { paths: 60 }, engagement: { feedbackPerDay: 40, conversationsPerDay: 60, searchTermsPerDay: 80 } });
    for (const metric of ['visitors', 'feedback', 'searches', 'assistant']) {
      const result = await h.run(['export', metric, '--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-06']);
      expect(result.code, result.stderr).toBe(0);
    }
    // A second project's conversations, on pages of the same paths.
    const guides = await h.run(['export', 'assistant', '--project', 'guides', '--from', '2026-03-02', '--to', '2026-03-06']);
    expect(guides.code, guides.stderr).toBe(0);
  });
  afterAll(async () => {
    await h.close();
  });

  it('unanswered_questions counts every unanswered conversation once, by category and page', async () => {
    const [base] = await queryDb<{ n: bigint }>(h, `SELECT count(*) AS n FROM assistant_conversations WHERE resolution_status = 'unanswered'`);
    const [view] = await queryDb<{ n: bigint; groups: bigint }>(h, `SELECT sum(unanswered) AS n, count(*) AS groups FROM unanswered_questions`);
    expect(Number(base?.n)).toBeGreaterThan(0);
    expect(view?.n).toBe(base?.n);
    expect(Number(view?.groups)).toBeGreaterThan(1);
    const paths = await queryDb<{ page_path: string | null }>(h, `SELECT DISTINCT page_path FROM unanswered_questions WHERE page_path IS NOT NULL`);
    expect(paths.every((p) => p.page_path?.startsWith('/'))).toBe(true);
  });

  it('page_path_of: one page is one path, whatever its anchor, query, trailing slash or scheme case', async () => {
    const urls = ['https://docs.acme.com/quickstart', 'https://docs.acme.com/quickstart#install', 'https://docs.acme.com/quickstart?utm_source=x',
      'HTTPS://docs.acme.com/quickstart/', 'http://docs.acme.com:8080/quickstart?a=1#b', '/quickstart#install'];
    const rows = await queryDb<{ p: string | null }>(h, `SELECT page_path_of(u) AS p FROM unnest([${urls.map((u) => `'${u}'`).join(', ')}]) t(u)`);
    expect(rows.map((r) => r.p)).toEqual(urls.map(() => '/quickstart'));
    const edges = await queryDb<Record<string, string | null>>(h, `SELECT page_path_of('https://docs.acme.com') AS host, page_path_of('https://docs.acme.com/?x=1') AS root,
        page_path_of('') AS blank, page_path_of(NULL) AS none, page_path_of('https://docs.acme.com/api/a/b') AS deep`);
    expect(edges).toEqual([{ host: '/', root: '/', blank: null, none: null, deep: '/api/a/b' }]);
  });

  it('searches_without_clicks holds exactly the terms with no click on any day, hits summed over day windows', async () => {
    const view = await queryDb<{ search_query: string; hits: bigint }>(h, `SELECT search_query, hits FROM searches_without_clicks ORDER BY search_query`);
    const base = await queryDb<{ search_query: string; hits: bigint }>(
      h,
      `SELECT search_query, sum(hits) AS hits FROM searches GROUP BY search_query HAVING bool_and(top_clicked_page IS NULL) ORDER BY search_query`,
    );
    expect(view.length).toBeGreaterThan(0);
    expect(view).toEqual(base);
  });

  it('daily_page_feedback sets thumbs down beside the same day\'s visitors', async () => {
    const rows = await queryDb<{ thumbs_down: bigint; visitors: bigint | null; day: unknown }>(h, `SELECT thumbs_down, visitors, day FROM daily_page_feedback`);
    const [events] = await queryDb<{ n: bigint }>(h, `SELECT count(*) FILTER (WHERE source = 'contextual' AND NOT helpful) AS n FROM feedback`);
    expect(rows.reduce((s, r) => s + r.thumbs_down, 0n)).toBe(events?.n);
    expect(rows.some((r) => r.visitors !== null)).toBe(true);
  });

  it('daily_page_feedback reads a feedback path given as a URL (the API may send either) as the page\'s path', async () => {
    const [page] = await queryDb<{ path: string; day: string; total: bigint }>(
      h,
      `SELECT path, strftime(window_start, '%Y-%m-%d') AS day, total FROM page_visitors
        WHERE project_id = 'docs' AND window_end = window_start + 1 AND path <> '/' ORDER BY total DESC, path LIMIT 1`,
    );
    const on = `project_id = 'docs' AND day = DATE '${page!.day}' AND path = '${page!.path}'`;
    const before = await queryDb<{ thumbs_down: bigint }>(h, `SELECT thumbs_down FROM daily_page_feedback WHERE ${on}`);
    const feedback = (id: string, path: string): string =>
      `('docs', '${id}', DATE '${page!.day}', DATE '${page!.day}' + 1, '${path}', 'contextual', false)`;
    await queryDb(h, `INSERT INTO feedback (project_id, id, window_start, window_end, path, source, helpful)
      VALUES ${feedback('url-form', `https://docs.acme.com${page!.path}?utm_source=x`)}, ${feedback('path-form', page!.path)}`);
    try {
      const rows = await queryDb<{ thumbs_down: bigint; visitors: bigint | null }>(
        h,
        `SELECT thumbs_down, visitors FROM daily_page_feedback WHERE project_id = 'docs' AND day = DATE '${page!.day}' AND path IN ('${page!.path}', 'https://docs.acme.com${page!.path}?utm_source=x')`,
      );
      expect(rows).toEqual([{ thumbs_down: (before[0]?.thumbs_down ?? 0n) + 2n, visitors: page!.total }]);
    } finally {
      await queryDb(h, `DELETE FROM feedback WHERE id IN ('url-form', 'path-form')`);
    }
  });

  it('the ready-made queries run, and the prompt query gives one prompt per page with unanswered questions', async () => {
    for (const file of ['unanswered-questions.sql', 'searches-without-clicks.sql', 'negative-feedback-pages.sql']) {
      const result = await h.run(['query', '--file', join('sql/queries', file), '--format', 'json']);
      expect(result.code, `${file}: ${result.stderr}`).toBe(0);
      const rows = jsonRows(result.stdout) as { project_id: string }[];
      expect(rows.length, file).toBeGreaterThan(0);
      // Per project: a page or term of one project is neither merged with another's nor shown without its project.
      const projects = new Set(rows.map((r) => r.project_id));
      expect(projects, file).toEqual(new Set(file === 'unanswered-questions.sql' ? ['docs', 'guides'] : ['docs']));
    }
    const prompts = await h.run(['query', '--file', 'sql/queries/prompts-unanswered-questions.sql', '--format', 'json']);
    expect(prompts.code, prompts.stderr).toBe(0);
    const rows = jsonRows(prompts.stdout) as { project_id: string; id: string; prompt: string }[];
    // Each row names its project, so that jobs from-query --project keeps only that project's.
    for (const r of rows) expect(r.id.startsWith(`unanswered:${r.project_id}:`), r.id).toBe(true);
    // One prompt per project and page: a page's questions in one project are not another's.
    const pages = await queryDb<{ project_id: string; page_path: string; n: bigint }>(
      h,
      `SELECT project_id, page_path, sum(unanswered) AS n FROM unanswered_questions WHERE page_path IS NOT NULL GROUP BY ALL`,
    );
    expect(new Set(pages.map((p) => p.project_id))).toEqual(new Set(['docs', 'guides']));
    expect(rows).toHaveLength(pages.length);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    for (const p of pages) {
      const row = rows.find((r) => r.id === `unanswered:${p.project_id}:${p.page_path}`);
      expect(row?.prompt, `${p.project_id} ${p.page_path}`).toContain(`(${p.n} unanswered in total)`);
    }
    expect(rows[0]?.prompt).toMatch(/^Readers asked the docs assistant these questions on the page \/.+\?/);
  });
});
