"""The benchmarks' own tests: each quick run works and writes a well-formed report."""
