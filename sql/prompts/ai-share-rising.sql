-- Pages whose AI share of unique visitors rose the most, week over week: per project, the
-- newest complete ISO week against the week before it, for pages with at least
-- `min_visitors` in both. Uniques come from weekly windows themselves (never summed from
-- days): load them with `docpipe export visitors --window week`, or a pipeline whose
-- "windows" include "week".
--
--   docpipe jobs from-query --file sql/prompts/ai-share-rising.sql \
--     --template "AI agents now make up {ai_share} of the visitors of {path} (was {previous_ai_share} the week before). Make the page easier for AI tools: clear headings, complete code samples, explicit prerequisites."
WITH settings AS (SELECT 20 AS min_visitors, 10 AS top_n),
weeks AS (
  SELECT project_id, window_start, window_end,
         row_number() OVER (PARTITION BY project_id ORDER BY window_start DESC) AS age
  FROM loaded_windows
  WHERE metric = 'visitors' AND window_end - window_start = 7 AND isodow(window_start) = 1
    AND window_complete(window_end, fetched_at)
),
this_week AS (SELECT * FROM weeks WHERE age = 1),
last_week AS (
  SELECT w.* FROM weeks w JOIN this_week t ON w.project_id = t.project_id AND w.window_end = t.window_start
),
pairs AS (
  SELECT t.project_id, cur.path, t.window_start AS week_start,
         prev.ai / prev.total AS previous_share, cur.ai / cur.total AS share,
         prev.total AS previous_visitors, cur.total AS visitors, cur.ai AS ai_visitors
  FROM this_week t
  JOIN last_week l ON l.project_id = t.project_id
  JOIN page_visitors cur
    ON cur.project_id = t.project_id AND cur.window_start = t.window_start AND cur.window_end = t.window_end
  JOIN page_visitors prev
    ON prev.project_id = l.project_id AND prev.window_start = l.window_start AND prev.window_end = l.window_end
   AND prev.path = cur.path
  , settings s
  WHERE cur.total >= s.min_visitors AND prev.total >= s.min_visitors
)
SELECT project_id, path, week_start,
       round(previous_share, 3) AS previous_ai_share, round(share, 3) AS ai_share,
       round(share - previous_share, 3) AS ai_share_change,
       previous_visitors, visitors, ai_visitors
FROM pairs, settings s
WHERE share > previous_share
QUALIFY row_number() OVER (PARTITION BY project_id ORDER BY share - previous_share DESC, path) <= s.top_n
ORDER BY project_id, share - previous_share DESC, path;
