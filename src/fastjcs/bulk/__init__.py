"""Bulk paths: many documents at once, in parallel, on one machine or a cluster.

Modules: `jsonl` (digests of JSON Lines in parallel chunks, the engine of ``fastjcs digest
--jsonl``), `jobs` (one output file per input file, written atomically, with resume),
`folder_lock` (one job at a time per output folder), `arrow` (JSON texts in Arrow columns,
public as `fastjcs.arrow`) and `dask` (the same on a Dask cluster, public as `fastjcs.dask`).
They stand on the core, and on CPB for the withdrawn jcs-n profile's preimages (`jsonl`, for
``--profile jcs-n``; tests/test_layers.py holds the layers); importing them loads no CLI, lab or
conformance module.
"""
