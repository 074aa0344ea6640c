-- One agent prompt per project and page with unanswered assistant questions, for `docpipe
-- jobs from-query` (columns `id` and `prompt`, like a prompt file, and `project_id`). Pages are
-- those the questions were asked on; the prompt quotes the five most recently asked, and
-- counts them all. Jobs belong to one project: `jobs from-query --project docs` keeps the rows
-- whose project_id is docs.
WITH asked AS (
  SELECT project_id, page_path_of(page_url) AS page_path, query, count(*) AS times, max("timestamp") AS last_asked
  FROM assistant_conversations
  WHERE resolution_status = 'unanswered'
  GROUP BY ALL
)
SELECT project_id, 'unanswered:' || project_id || ':' || page_path AS id,
       'Readers asked the docs assistant these questions on the page ' || page_path ||
       ' and it could not answer them from the documentation (' || sum(times) ||
       ' unanswered in total). Update the documentation so that they are answered: ' ||
       array_to_string(list(query ORDER BY last_asked DESC, query)[1:5], ' | ') AS prompt
FROM asked
WHERE page_path IS NOT NULL
GROUP BY project_id, page_path
ORDER BY sum(times) DESC, project_id, page_path;
