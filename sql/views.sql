-- Views for ad-hoc SQL. Uniques are never summed across windows: each view keeps the window
-- columns, and weekly/monthly uniques come only from weekly/monthly windows.

-- Daily unique visitors per page (day windows only), with the AI share.
CREATE OR REPLACE VIEW daily_page_visitors AS
SELECT project_id, window_start AS day, path, human, ai, total,
       CASE WHEN total > 0 THEN round(ai / total, 4) END AS ai_share, flags
FROM page_visitors
WHERE window_end = window_start + INTERVAL 1 DAY;

-- Site-wide daily unique visitors and page views side by side (day windows only).
CREATE OR REPLACE VIEW daily_site AS
SELECT coalesce(v.project_id, w.project_id) AS project_id,
       coalesce(v.window_start, w.window_start) AS day,
       v.human AS visitors_human, v.ai AS visitors_ai, v.total AS visitors_total,
       w.human AS views_human, w.ai AS views_ai, w.total AS views_total
FROM (SELECT * FROM visitor_totals WHERE window_end = window_start + INTERVAL 1 DAY) v
FULL OUTER JOIN (SELECT * FROM view_totals WHERE window_end = window_start + INTERVAL 1 DAY) w
  ON v.project_id = w.project_id AND v.window_start = w.window_start;

-- Windows and their freshness: when each was fetched and whether it carried warnings.
CREATE OR REPLACE VIEW window_status AS
SELECT metric, project_id, window_start, window_end, fetched_at, row_count, pages, requests, walks,
       len(coalesce(warnings, [])) AS warning_count, warnings
FROM loaded_windows;

-- Rows kept despite a data-quality flag.
CREATE OR REPLACE VIEW flagged_rows AS
SELECT 'visitors' AS metric, * FROM page_visitors WHERE flags IS NOT NULL
UNION ALL
SELECT 'views' AS metric, * FROM page_views WHERE flags IS NOT NULL;

-- Unanswered assistant questions by category and by the page they were asked on (the path of
-- page_url; NULL when the API captured no page). The documentation gaps, most asked first.
CREATE OR REPLACE VIEW unanswered_questions AS
SELECT project_id,
       query_category,
       nullif(regexp_replace(page_url, '^[a-z]+://[^/]+', ''), '') AS page_path,
       count(*) AS unanswered,
       min("timestamp") AS first_asked,
       max("timestamp") AS last_asked,
       list(query ORDER BY "timestamp" DESC)[1:5] AS recent_questions
FROM assistant_conversations
WHERE resolution_status = 'unanswered'
GROUP BY ALL;

-- Search terms that never led to a click, over the day windows loaded (hits are events, so
-- summing day windows is correct; other windows are left out so that nothing counts twice).
CREATE OR REPLACE VIEW searches_without_clicks AS
SELECT project_id, search_query, sum(hits) AS hits, count(*) AS days_searched,
       min(window_start) AS first_day, max(last_searched_at) AS last_searched_at
FROM searches
WHERE window_end = window_start + INTERVAL 1 DAY
GROUP BY project_id, search_query
HAVING max(ctr) = 0;

-- Page feedback per day beside the page's unique visitors that day (day windows; the
-- feedback events are counted on the day of their window). negative_per_1000 relates thumbs
-- down to readers, so busy pages do not top the list for being busy.
CREATE OR REPLACE VIEW daily_page_feedback AS
WITH f AS (
  SELECT project_id, window_start AS day, path,
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
