-- What readers asked the assistant that the documentation could not answer, by category and
-- page, most asked first (docpipe export assistant ...).
SELECT coalesce(query_category, '(none)') AS category,
       coalesce(page_path, '(no page)') AS page,
       unanswered, last_asked, recent_questions
FROM unanswered_questions
ORDER BY unanswered DESC, category, page
LIMIT 50;
