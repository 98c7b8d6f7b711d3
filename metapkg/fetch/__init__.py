"""Getting packages onto local disk: sources (file:, GitHub), the cache, the crawl."""
