-- Pages whose share of AI visitors rose the most between the two newest complete weekly
-- windows (export --window week), per project. Both weeks' uniques are read from their own
-- weekly windows; the week before must be loaded and complete (no row when it is missing). Pages with fewer than 10 unique visitors in either week are left out (a
-- share of a handful of visitors is noise); edit min_visitors to change that.
-- May: compare ai_share between windows of the same grain. May not: sum or average the
-- uniques of the two weeks.
WITH params AS (SELECT 10 AS min_visitors),
weeks AS (
  SELECT project_id, window_start, window_end,
         row_number() OVER (PARTITION BY project_id ORDER BY window_end DESC) AS age
  FROM window_status
  WHERE metric = 'visitors' AND grain = 'week' AND complete
),
latest AS (SELECT * FROM weeks WHERE age = 1),
-- The week just before the newest: the one that ends where it starts.
before AS (SELECT w.* FROM weeks w JOIN latest l ON w.project_id = l.project_id AND w.window_end = l.window_start),
cur AS (SELECT p.* FROM page_visitors p JOIN latest w USING (project_id, window_start, window_end)),
prev AS (SELECT p.* FROM page_visitors p JOIN before w USING (project_id, window_start, window_end))
SELECT cur.project_id, cur.path,
       prev.window_start AS previous_week, cur.window_start AS week,
       prev.total AS previous_visitors, cur.total AS visitors,
       round(prev.ai / prev.total, 4) AS previous_ai_share,
       round(cur.ai / cur.total, 4) AS ai_share,
       round(cur.ai / cur.total - prev.ai / prev.total, 4) AS ai_share_change
FROM cur
JOIN prev USING (project_id, path)
CROSS JOIN params
WHERE cur.total >= params.min_visitors AND prev.total >= params.min_visitors
  AND cur.ai / cur.total > prev.ai / prev.total
-- The 20 that rose most in each project.
QUALIFY row_number() OVER (PARTITION BY cur.project_id ORDER BY ai_share_change DESC, cur.path) <= 20
ORDER BY cur.project_id, ai_share_change DESC, cur.path;
