-- Search terms readers typed that never led to a click: what they looked for and did not
-- find (docpipe export searches ... with day windows).
SELECT search_query, hits, days_searched, last_searched_at
FROM searches_without_clicks
ORDER BY hits DESC, search_query
LIMIT 50;
