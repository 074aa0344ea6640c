-- Pages that had unique visitors in the newest complete weekly window but none in the week
-- before ('new'), and pages that had some the week before but none now ('vanished'), per
-- project. Presence is read from each weekly window (export --window week), not from days.
-- May: count pages. May not: add the visitors of the two weeks.
WITH weeks AS (
  SELECT project_id, window_start, window_end,
         row_number() OVER (PARTITION BY project_id ORDER BY window_end DESC) AS age
  FROM window_status
  WHERE metric = 'visitors' AND grain = 'week' AND complete
),
cur AS (
  SELECT p.project_id, p.path, p.total, w.window_start
  FROM page_visitors p JOIN weeks w USING (project_id, window_start, window_end)
  WHERE w.age = 1 AND p.total > 0
),
prev AS (
  SELECT p.project_id, p.path, p.total, w.window_start
  FROM page_visitors p JOIN weeks w USING (project_id, window_start, window_end)
  WHERE w.age = 2 AND p.total > 0
),
pair AS (
  SELECT project_id, max(window_start) FILTER (WHERE age = 1) AS week,
         max(window_start) FILTER (WHERE age = 2) AS previous_week
  FROM weeks GROUP BY project_id HAVING count(*) FILTER (WHERE age <= 2) = 2
)
SELECT 'new' AS change, pair.project_id, cur.path, pair.previous_week, pair.week, cur.total AS visitors
FROM cur JOIN pair USING (project_id)
WHERE NOT EXISTS (SELECT 1 FROM prev WHERE prev.project_id = cur.project_id AND prev.path = cur.path)
UNION ALL
SELECT 'vanished' AS change, pair.project_id, prev.path, pair.previous_week, pair.week, prev.total AS visitors
FROM prev JOIN pair USING (project_id)
WHERE NOT EXISTS (SELECT 1 FROM cur WHERE cur.project_id = prev.project_id AND cur.path = prev.path)
ORDER BY change, project_id, visitors DESC, path;
