-- Pages that had unique visitors in the newest complete weekly window but none in the week
-- before ('new'), and pages that had some the week before but none now ('vanished'), per
-- project. Presence is read from each weekly window (export --window week), not from days.
-- The week before must be loaded and complete: a project without it has no row.
-- A page listed with a count the API did not give (NULL, flagged count_missing) is present.
-- May: count pages. May not: add the visitors of the two weeks.
WITH weeks AS (
  SELECT project_id, window_start, window_end,
         row_number() OVER (PARTITION BY project_id ORDER BY window_end DESC) AS age
  FROM window_status
  WHERE metric = 'visitors' AND grain = 'week' AND complete
),
-- The newest complete week and the week just before it (the one that ends where it starts).
pair AS (
  SELECT l.project_id, l.window_start AS week, l.window_end AS week_end, b.window_start AS previous_week
  FROM weeks l JOIN weeks b ON b.project_id = l.project_id AND b.window_end = l.window_start
  WHERE l.age = 1
),
cur AS (
  SELECT p.project_id, p.path, p.total
  FROM page_visitors p JOIN pair w ON p.project_id = w.project_id AND p.window_start = w.week AND p.window_end = w.week_end
  WHERE p.total > 0 OR p.total IS NULL
),
prev AS (
  SELECT p.project_id, p.path, p.total
  FROM page_visitors p JOIN pair w ON p.project_id = w.project_id AND p.window_start = w.previous_week AND p.window_end = w.week
  WHERE p.total > 0 OR p.total IS NULL
)
SELECT 'new' AS change, pair.project_id, cur.path, pair.previous_week, pair.week, cur.total AS visitors
FROM cur JOIN pair USING (project_id)
WHERE NOT EXISTS (SELECT 1 FROM prev WHERE prev.project_id = cur.project_id AND prev.path = cur.path)
UNION ALL
SELECT 'vanished' AS change, pair.project_id, prev.path, pair.previous_week, pair.week, prev.total AS visitors
FROM prev JOIN pair USING (project_id)
WHERE NOT EXISTS (SELECT 1 FROM cur WHERE cur.project_id = prev.project_id AND cur.path = prev.path)
ORDER BY change, project_id, visitors DESC, path;
