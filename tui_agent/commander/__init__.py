"""The job/handler engine: a task tree of jobs and handlers with completion callbacks."""
