"""The interop lab and the benchmark: fastjcs held against other canonicalizers.

Modules: `peers` (running another canonicalizer: one process per document, or the batch
protocol; the lab's peers and their manifests), `corpus` (the cases by category, each with its
clause and a checked expected answer), `classify` (the classes of an answer), `shrink` (a failing
case cut down to a reproducer), `report` (the matrix as text, markdown and HTML), `interop` (a
peer's run and the matrix: ``fastjcs interop``), `crosscheck` (another
implementation held to fastjcs's answers: ``fastjcs crosscheck``) and `bench` (the benchmark:
``fastjcs bench``), over `canonicalizers` (the one registry of canonicalizers, which benchmarks/
uses too) and `probes` (what labels one JCS-correct or not).
"""
