"""``fuzzfarm web``: a read-mostly web view of the farm (campaigns live, bug groups and
buckets, a bucket's interleaving drawn as goroutine swimlanes). Starlette + Jinja2 served by
uvicorn; every asset ships in this package (templates/, static/)."""
