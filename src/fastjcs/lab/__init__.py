"""The interop lab and the benchmark: fastjcs held against other canonicalizers.

Modules: `peers` (running another canonicalizer: one process per document, or the batch
protocol), `corpus` (the cases by category, each with its clause and a checked expected answer),
`interop` (classes, shrinking, the matrix: ``fastjcs interop``), `crosscheck` (another
implementation held to fastjcs's answers: ``fastjcs crosscheck``) and `bench` (the one registry
of canonicalizers and the benchmark: ``fastjcs bench`` and benchmarks/).
"""
