"""Resolution (resolver.py, with resolvelib behind provider.py) and the pure graph
functions (graph.py) that `tree` and `why` use without importing the resolver."""
