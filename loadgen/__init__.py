"""Load generation for the testbed: Locust users per request path, load shapes, and the
experiment definitions (experiments/*.toml)."""
