-- One agent prompt per page with unanswered assistant questions, for `docpipe jobs
-- from-query` (columns `id` and `prompt`, like a prompt file). Pages are those the questions
-- were asked on; the prompt quotes up to five recent questions.
SELECT 'unanswered:' || page_path AS id,
       'Readers asked the docs assistant these questions on the page ' || page_path ||
       ' and it could not answer them from the documentation (' || sum(unanswered) ||
       ' unanswered in total). Update the documentation so that they are answered: ' ||
       array_to_string(list_distinct(flatten(list(recent_questions)))[1:5], ' | ') AS prompt
FROM unanswered_questions
WHERE page_path IS NOT NULL
GROUP BY page_path
ORDER BY sum(unanswered) DESC, page_path;
