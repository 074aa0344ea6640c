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
