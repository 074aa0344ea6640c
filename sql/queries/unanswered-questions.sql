-- What readers asked the assistant that the documentation could not answer, per project, by
-- category and page, most asked first (docpipe export assistant ...). The 50 first of each project.
SELECT project_id,
       coalesce(query_category, '(none)') AS category,
       coalesce(page_path, '(no page)') AS page,
       unanswered, last_asked, recent_questions
FROM unanswered_questions
QUALIFY row_number() OVER (PARTITION BY project_id ORDER BY unanswered DESC, category, page) <= 50
ORDER BY project_id, unanswered DESC, category, page;
