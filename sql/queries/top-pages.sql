-- Top 10 pages by unique visitors over the most recent multi-day window loaded with
-- `--window range` (or week/month), with their page views over the same days. Uniques are
-- read from that window itself (never summed from days); views are events, so summing the
-- daily view windows inside it is correct.
WITH r AS (
  SELECT project_id, window_start, window_end
  FROM visitor_totals
  WHERE window_end - window_start > 1
  ORDER BY window_end DESC, window_end - window_start DESC
  LIMIT 1
),
views AS (
  SELECT p.path, sum(p.total) AS views
  FROM page_views p JOIN r ON p.project_id = r.project_id
  WHERE p.window_start >= r.window_start AND p.window_end <= r.window_end
    AND p.window_end = p.window_start + 1
  GROUP BY p.path
)
SELECT v.path, v.total AS visitors, v.human, v.ai,
       round(100.0 * v.ai / nullif(v.total, 0), 1) AS ai_pct, views.views
FROM page_visitors v
JOIN r USING (project_id, window_start, window_end)
LEFT JOIN views USING (path)
ORDER BY v.total DESC, v.path
LIMIT 10;
