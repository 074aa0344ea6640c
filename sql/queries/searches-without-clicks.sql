-- Search terms readers typed that never led to a click, per project: what they looked for and
-- did not find (docpipe export searches ... with day windows). The 50 most searched of each project.
SELECT project_id, search_query, hits, days_searched, last_searched_at
FROM searches_without_clicks
QUALIFY row_number() OVER (PARTITION BY project_id ORDER BY hits DESC, search_query) <= 50
ORDER BY project_id, hits DESC, search_query;
