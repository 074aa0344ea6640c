-- Views for ad-hoc SQL, re-created whenever this file changes. Comments (COMMENT ON) follow
-- each view, so `SELECT comment FROM duckdb_views()` / `duckdb_columns()` in any client says
-- what a view and its columns mean.
--
-- What may be aggregated:
--   * page views are events: summing the views of windows that partition a range is correct;
--   * unique visitors are NOT additive: never sum them across windows (days do not add up to a
--     week) nor across pages (per-page rows do not add up to the site's totals). Weekly and
--     monthly uniques come only from weekly and monthly windows;
--   * a ratio (ai_share) may be compared across windows, not averaged into another window's.

-- The grain of a window [s, e): 'day', 'week' (Monday to Monday), 'month' (1st to 1st), or
-- 'range' (any other span, e.g. `export --window range`).
CREATE OR REPLACE MACRO window_grain(s, e) AS
  CASE
    WHEN e = s + 1 THEN 'day'
    WHEN e = s + 7 AND isodow(s) = 1 THEN 'week'
    WHEN day(s) = 1 AND e = CAST(s + INTERVAL 1 MONTH AS DATE) THEN 'month'
    ELSE 'range'
  END;

-- A window is complete once it has ended (UTC) and its data was fetched after it ended: a
-- window fetched while still running (today's, this week's) holds partial counts.
CREATE OR REPLACE MACRO window_complete(e, fetched) AS
  e <= CAST(timezone('UTC', now()) AS DATE) AND fetched >= timezone('UTC', CAST(e AS TIMESTAMP));

-- Daily unique visitors per page (day windows only), with the AI share.
CREATE OR REPLACE VIEW daily_page_visitors AS
SELECT project_id, window_start AS day, path, human, ai, total,
       CASE WHEN total > 0 THEN round(ai / total, 4) END AS ai_share, flags
FROM page_visitors
WHERE window_end = window_start + INTERVAL 1 DAY;
COMMENT ON VIEW daily_page_visitors IS 'Unique visitors per page and UTC day (day windows only). Do not sum across days or pages: uniques are not additive.';
COMMENT ON COLUMN daily_page_visitors.day IS 'The UTC day (window [day, day + 1)).';
COMMENT ON COLUMN daily_page_visitors.total IS 'Unique visitors of the page that day, human and AI deduplicated (total <= human + ai).';
COMMENT ON COLUMN daily_page_visitors.ai_share IS 'ai / total, 0..1 (NULL when total is 0).';
COMMENT ON COLUMN daily_page_visitors.flags IS 'Data-quality flags the loader set on the row (NULL when clean).';

-- Page views per page and UTC day (day windows only), with the AI share.
CREATE OR REPLACE VIEW daily_page_views AS
SELECT project_id, window_start AS day, path, human, ai, total,
       CASE WHEN total > 0 THEN round(ai / total, 4) END AS ai_share, flags
FROM page_views
WHERE window_end = window_start + INTERVAL 1 DAY;
COMMENT ON VIEW daily_page_views IS 'Page views per page and UTC day (day windows only). Views are events: summing days into a week or pages into a site is correct.';
COMMENT ON COLUMN daily_page_views.day IS 'The UTC day (window [day, day + 1)).';
COMMENT ON COLUMN daily_page_views.total IS 'Page views of the page that day.';
COMMENT ON COLUMN daily_page_views.ai_share IS 'ai / total, 0..1 (NULL when total is 0).';
COMMENT ON COLUMN daily_page_views.flags IS 'Data-quality flags the loader set on the row (NULL when clean).';

-- Windows and their freshness: when each was fetched, its grain, whether it is complete, and
-- whether it carried warnings.
CREATE OR REPLACE VIEW window_status AS
SELECT metric, project_id, window_start, window_end, fetched_at, row_count, pages, requests, walks,
       len(coalesce(warnings, [])) AS warning_count, warnings,
       window_grain(window_start, window_end) AS grain,
       window_complete(window_end, fetched_at) AS complete
FROM loaded_windows;
COMMENT ON VIEW window_status IS 'Every loaded window [window_start, window_end) per metric and project: when it was fetched, its grain, whether it is complete, and its data-quality warnings.';
COMMENT ON COLUMN window_status.grain IS 'day, week (Monday to Monday), month (1st to 1st) or range (any other span).';
COMMENT ON COLUMN window_status.complete IS 'The window has ended (UTC) and was fetched after it ended; an incomplete window holds partial counts.';
COMMENT ON COLUMN window_status.warnings IS 'Drift warnings of the page walk (repeated paths, totals that moved between pages).';

-- Rows kept despite a data-quality flag.
CREATE OR REPLACE VIEW flagged_rows AS
SELECT 'visitors' AS metric, project_id, window_start, window_end, path, human, ai, total, run_id, flags
FROM page_visitors WHERE flags IS NOT NULL
UNION ALL
SELECT 'views' AS metric, project_id, window_start, window_end, path, human, ai, total, run_id, flags
FROM page_views WHERE flags IS NOT NULL;
COMMENT ON VIEW flagged_rows IS 'Page rows kept despite a data-quality flag (e.g. total outside max(human, ai)..human + ai, or a non-integral count).';

-- Site-wide totals of every loaded window, visitors and views side by side.
CREATE OR REPLACE VIEW site_windows AS
WITH v AS (
  SELECT t.project_id, t.window_start, t.window_end, t.human, t.ai, t.total, lw.fetched_at
  FROM visitor_totals t
  LEFT JOIN loaded_windows lw ON lw.metric = 'visitors' AND lw.project_id = t.project_id
    AND lw.window_start = t.window_start AND lw.window_end = t.window_end
), w AS (
  SELECT t.project_id, t.window_start, t.window_end, t.human, t.ai, t.total, lw.fetched_at
  FROM view_totals t
  LEFT JOIN loaded_windows lw ON lw.metric = 'views' AND lw.project_id = t.project_id
    AND lw.window_start = t.window_start AND lw.window_end = t.window_end
)
SELECT coalesce(v.project_id, w.project_id) AS project_id,
       coalesce(v.window_start, w.window_start) AS window_start,
       coalesce(v.window_end, w.window_end) AS window_end,
       window_grain(coalesce(v.window_start, w.window_start), coalesce(v.window_end, w.window_end)) AS grain,
       v.human AS visitors_human, v.ai AS visitors_ai, v.total AS visitors_total,
       CASE WHEN v.total > 0 THEN round(v.ai / v.total, 4) END AS ai_share,
       w.human AS views_human, w.ai AS views_ai, w.total AS views_total,
       CASE WHEN w.total > 0 THEN round(w.ai / w.total, 4) END AS views_ai_share,
       (v.project_id IS NULL OR coalesce(window_complete(v.window_end, v.fetched_at), false))
         AND (w.project_id IS NULL OR coalesce(window_complete(w.window_end, w.fetched_at), false)) AS complete
FROM v
FULL OUTER JOIN w
  ON v.project_id = w.project_id AND v.window_start = w.window_start AND v.window_end = w.window_end;
COMMENT ON VIEW site_windows IS 'Site-wide unique visitors and page views of every loaded window, side by side. Compare windows of the same grain; never sum visitors across windows.';
COMMENT ON COLUMN site_windows.window_start IS 'First UTC day of the window (inclusive).';
COMMENT ON COLUMN site_windows.window_end IS 'UTC day after the window (exclusive).';
COMMENT ON COLUMN site_windows.grain IS 'day, week (Monday to Monday), month (1st to 1st) or range (any other span).';
COMMENT ON COLUMN site_windows.visitors_total IS 'Unique visitors of the window, human and AI deduplicated. Not additive across windows.';
COMMENT ON COLUMN site_windows.ai_share IS 'visitors_ai / visitors_total, 0..1: the share of unique visitors that are AI agents.';
COMMENT ON COLUMN site_windows.visitors_human IS 'Unique human visitors.';
COMMENT ON COLUMN site_windows.visitors_ai IS 'Unique AI-agent visitors.';
COMMENT ON COLUMN site_windows.views_human IS 'Page views by humans.';
COMMENT ON COLUMN site_windows.views_ai IS 'Page views by AI agents.';
COMMENT ON COLUMN site_windows.views_total IS 'Page views of the window (events: additive across windows).';
COMMENT ON COLUMN site_windows.views_ai_share IS 'views_ai / views_total, 0..1.';
COMMENT ON COLUMN site_windows.complete IS 'Every metric present was fetched after the window ended; false means partial counts.';

-- Site-wide daily unique visitors and page views side by side (day windows only).
CREATE OR REPLACE VIEW daily_site AS
SELECT project_id, window_start AS day,
       visitors_human, visitors_ai, visitors_total, views_human, views_ai, views_total,
       ai_share, views_ai_share, complete
FROM site_windows
WHERE grain = 'day';
COMMENT ON VIEW daily_site IS 'Site-wide unique visitors and page views per UTC day (day windows only). Do not sum visitors over days: weekly uniques are in weekly_site.';
COMMENT ON COLUMN daily_site.day IS 'The UTC day (window [day, day + 1)).';
COMMENT ON COLUMN daily_site.visitors_total IS 'Unique visitors that day, human and AI deduplicated (total <= human + ai).';
COMMENT ON COLUMN daily_site.ai_share IS 'visitors_ai / visitors_total, 0..1: the share of unique visitors that are AI agents.';
COMMENT ON COLUMN daily_site.visitors_human IS 'Unique human visitors.';
COMMENT ON COLUMN daily_site.visitors_ai IS 'Unique AI-agent visitors.';
COMMENT ON COLUMN daily_site.views_human IS 'Page views by humans.';
COMMENT ON COLUMN daily_site.views_ai IS 'Page views by AI agents.';
COMMENT ON COLUMN daily_site.views_total IS 'Page views that day (additive: summing days is correct).';
COMMENT ON COLUMN daily_site.views_ai_share IS 'views_ai / views_total, 0..1.';
COMMENT ON COLUMN daily_site.complete IS 'The day had ended when it was fetched; false for today and for days fetched while running.';

-- Site-wide weekly figures, from weekly windows only (`export --window week`).
CREATE OR REPLACE VIEW weekly_site AS
SELECT project_id, window_start AS week_start, window_end AS week_end,
       visitors_human, visitors_ai, visitors_total, ai_share,
       views_human, views_ai, views_total, views_ai_share, complete
FROM site_windows
WHERE grain = 'week';
COMMENT ON VIEW weekly_site IS 'Site-wide unique visitors and page views per ISO week, from weekly windows only (export --window week); a week with no weekly window is absent, never made up from days.';
COMMENT ON COLUMN weekly_site.week_start IS 'Monday the week starts (inclusive).';
COMMENT ON COLUMN weekly_site.week_end IS 'Monday after the week (exclusive).';
COMMENT ON COLUMN weekly_site.visitors_total IS 'Unique visitors of the week, read from the weekly window (not a sum of days).';
COMMENT ON COLUMN weekly_site.ai_share IS 'visitors_ai / visitors_total, 0..1.';
COMMENT ON COLUMN weekly_site.visitors_human IS 'Unique human visitors of the window.';
COMMENT ON COLUMN weekly_site.visitors_ai IS 'Unique AI-agent visitors of the window.';
COMMENT ON COLUMN weekly_site.views_human IS 'Page views by humans.';
COMMENT ON COLUMN weekly_site.views_ai IS 'Page views by AI agents.';
COMMENT ON COLUMN weekly_site.views_total IS 'Page views of the window (events: a sum of its days gives the same).';
COMMENT ON COLUMN weekly_site.views_ai_share IS 'views_ai / views_total, 0..1.';
COMMENT ON COLUMN weekly_site.complete IS 'The week had ended when it was fetched.';

-- Site-wide monthly figures, from monthly windows only (`export --window month`).
CREATE OR REPLACE VIEW monthly_site AS
SELECT project_id, window_start AS month_start, window_end AS month_end,
       visitors_human, visitors_ai, visitors_total, ai_share,
       views_human, views_ai, views_total, views_ai_share, complete
FROM site_windows
WHERE grain = 'month';
COMMENT ON VIEW monthly_site IS 'Site-wide unique visitors and page views per calendar month, from monthly windows only (export --window month).';
COMMENT ON COLUMN monthly_site.month_start IS 'The 1st of the month (inclusive).';
COMMENT ON COLUMN monthly_site.month_end IS 'The 1st of the next month (exclusive).';
COMMENT ON COLUMN monthly_site.visitors_total IS 'Unique visitors of the month, read from the monthly window (not a sum of days or weeks).';
COMMENT ON COLUMN monthly_site.ai_share IS 'visitors_ai / visitors_total, 0..1.';
COMMENT ON COLUMN monthly_site.visitors_human IS 'Unique human visitors of the window.';
COMMENT ON COLUMN monthly_site.visitors_ai IS 'Unique AI-agent visitors of the window.';
COMMENT ON COLUMN monthly_site.views_human IS 'Page views by humans.';
COMMENT ON COLUMN monthly_site.views_ai IS 'Page views by AI agents.';
COMMENT ON COLUMN monthly_site.views_total IS 'Page views of the window (events: a sum of its days gives the same).';
COMMENT ON COLUMN monthly_site.views_ai_share IS 'views_ai / views_total, 0..1.';
COMMENT ON COLUMN monthly_site.complete IS 'The month had ended when it was fetched.';

-- The top 10 pages by unique visitors of the newest complete visitors window of each grain
-- that lies within [range_start, range_end), per project, naming that window. A window still
-- running, or fetched before it ended, is never picked. Page views are those of the same window
-- when it was exported too. `report` reads its range's top pages from it; latest_top_pages is
-- its whole span.
CREATE OR REPLACE MACRO top_pages_within(range_start, range_end) AS TABLE
WITH newest AS (
  SELECT project_id, grain, window_start, window_end
  FROM window_status
  WHERE metric = 'visitors' AND complete
    AND window_start >= CAST(range_start AS DATE) AND window_end <= CAST(range_end AS DATE)
  QUALIFY row_number() OVER (PARTITION BY project_id, grain
                             ORDER BY window_end DESC, window_start ASC) = 1
), ranked AS (
  SELECT n.project_id, n.grain, n.window_start, n.window_end,
         row_number() OVER (PARTITION BY n.project_id, n.grain ORDER BY p.total DESC, p.path) AS rank,
         p.path, p.total AS visitors, p.human, p.ai,
         CASE WHEN p.total > 0 THEN round(p.ai / p.total, 4) END AS ai_share
  FROM newest n
  JOIN page_visitors p USING (project_id, window_start, window_end)
)
SELECT r.project_id, r.grain, r.window_start, r.window_end, r.rank, r.path, r.visitors, r.human, r.ai,
       r.ai_share, pv.total AS views
FROM ranked r
-- Views of the same window, when that window is complete too (partial counts are not shown
-- beside complete ones).
LEFT JOIN window_status vs
  ON vs.metric = 'views' AND vs.project_id = r.project_id AND vs.window_start = r.window_start
  AND vs.window_end = r.window_end AND vs.complete
-- On vs's columns, NULL where no complete views window matched: equalities alone, so that
-- DuckDB hashes the join (with `vs.complete AND ...` it compared every top page with every
-- row of page_views, a time that grew with the square of the number of projects).
LEFT JOIN page_views pv
  ON pv.project_id = vs.project_id AND pv.window_start = vs.window_start AND pv.window_end = vs.window_end
  AND pv.path = r.path
WHERE r.rank <= 10;

-- The one window of top_pages_within each project's top pages are shown for (by `report`, and
-- sql/queries/top-pages.sql): the newest, a longer window before a single day, then the longest.
-- `projects`: a list of project ids to keep (NULL: every project).
CREATE OR REPLACE MACRO top_pages_shown(range_start, range_end, projects := NULL) AS TABLE
WITH top AS MATERIALIZED (
  SELECT * FROM top_pages_within(range_start, range_end)
  WHERE projects IS NULL OR list_contains(projects, project_id)
), pick AS (
  SELECT DISTINCT project_id, grain, window_start, window_end
  FROM top
  QUALIFY row_number() OVER (PARTITION BY project_id
                             ORDER BY grain = 'day', window_end DESC, window_end - window_start DESC) = 1
)
SELECT t.* FROM top t JOIN pick USING (project_id, grain, window_start, window_end);

-- The top 10 pages of the newest complete visitors window of each grain, per project.
CREATE OR REPLACE VIEW latest_top_pages AS
SELECT * FROM top_pages_within(DATE '-infinity', DATE 'infinity');
COMMENT ON VIEW latest_top_pages IS 'Top 10 pages by unique visitors of the newest complete visitors window of each grain (day, week, month, range), per project; window_start/window_end name the window. Filter on grain, e.g. grain = ''week'' for last week.';
COMMENT ON COLUMN latest_top_pages.grain IS 'The grain of the window: day, week, month or range.';
COMMENT ON COLUMN latest_top_pages.window_start IS 'First day of the window (inclusive).';
COMMENT ON COLUMN latest_top_pages.window_end IS 'Day after the window (exclusive).';
COMMENT ON COLUMN latest_top_pages.path IS 'Page path.';
COMMENT ON COLUMN latest_top_pages.human IS 'Unique human visitors of the page over the window.';
COMMENT ON COLUMN latest_top_pages.ai IS 'Unique AI-agent visitors of the page over the window.';
COMMENT ON COLUMN latest_top_pages.rank IS '1 = most unique visitors (ties broken by path).';
COMMENT ON COLUMN latest_top_pages.visitors IS 'Unique visitors of the page over the window, read from that window.';
COMMENT ON COLUMN latest_top_pages.ai_share IS 'ai / visitors, 0..1.';
COMMENT ON COLUMN latest_top_pages.views IS 'Page views of the page over the same window; NULL when views were not exported for that window, or were fetched before it ended.';

-- The path of a page URL (`https://docs.acme.com/quickstart` -> `/quickstart`): without its
-- scheme and host (in any case), its `?query` and `#anchor`, and a trailing slash, so that one
-- page is one path (`HTTPS://docs.acme.com/quickstart/?utm_source=x#install` -> `/quickstart`);
-- the host alone is `/`; NULL for none.
CREATE OR REPLACE MACRO page_path_of(url) AS
  CASE WHEN nullif(trim(url), '') IS NOT NULL THEN
    coalesce(nullif(regexp_replace(regexp_replace(regexp_replace(trim(url), '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*', ''),
                                                  '[?#].*$', ''), '/+$', ''), ''), '/')
  END;

-- Unanswered assistant questions by category and by the page they were asked on (the path of
-- page_url; NULL when the API captured no page). The documentation gaps, most asked first.
CREATE OR REPLACE VIEW unanswered_questions AS
SELECT project_id,
       query_category,
       page_path_of(page_url) AS page_path,
       count(*) AS unanswered,
       min("timestamp") AS first_asked,
       max("timestamp") AS last_asked,
       list(query ORDER BY "timestamp" DESC)[1:5] AS recent_questions
FROM assistant_conversations
WHERE resolution_status = 'unanswered'
GROUP BY ALL;
COMMENT ON VIEW unanswered_questions IS 'Assistant questions left unanswered, by category and page: the documentation gaps, most asked first.';

-- Search terms that never led to a click, over the day windows loaded (hits are events, so
-- summing day windows is correct; other windows are left out so that nothing counts twice).
CREATE OR REPLACE VIEW searches_without_clicks AS
SELECT project_id, search_query, sum(hits) AS hits, count(*) AS days_searched,
       min(window_start) AS first_day, max(last_searched_at) AS last_searched_at
FROM searches
WHERE window_end = window_start + INTERVAL 1 DAY
GROUP BY project_id, search_query
HAVING max(ctr) = 0;
COMMENT ON VIEW searches_without_clicks IS 'Search terms that never led to a click, over the day windows loaded (hits summed over days: hits are events).';

-- Page feedback per day beside the page's unique visitors that day (day windows; the
-- feedback events are counted on the day of their window). negative_per_1000 relates thumbs
-- down to readers, so busy pages do not top the list for being busy.
CREATE OR REPLACE VIEW daily_page_feedback AS
WITH f AS (
  -- The API gives a feedback's page as a path or a URL: as a path, it is the page's.
  SELECT project_id, window_start AS day, page_path_of(path) AS path,
         count(*) FILTER (WHERE source = 'contextual' AND helpful) AS thumbs_up,
         count(*) FILTER (WHERE source = 'contextual' AND NOT helpful) AS thumbs_down,
         count(*) FILTER (WHERE source = 'code_snippet') AS code_issues,
         count(*) AS feedback
  FROM feedback
  GROUP BY ALL
)
SELECT f.project_id, f.day, f.path, f.thumbs_up, f.thumbs_down, f.code_issues, f.feedback,
       v.total AS visitors,
       round(1000.0 * f.thumbs_down / nullif(v.total, 0), 2) AS negative_per_1000
FROM f
LEFT JOIN page_visitors v
  ON v.project_id = f.project_id AND v.path = f.path
 AND v.window_start = f.day AND v.window_end = f.day + INTERVAL 1 DAY;
COMMENT ON VIEW daily_page_feedback IS 'Page feedback per day beside the page''s unique visitors that day; negative_per_1000 relates thumbs down to readers.';
