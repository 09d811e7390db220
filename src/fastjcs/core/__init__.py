"""The core every other layer stands on; `import fastjcs` loads this package and nothing else.

Modules: `api` (dumps, canonicalize, ... : the functions every layer calls), `backends` (which
backend runs), `backend` (the interface both backends implement), `python_backend` (the
reference) and `native_backend` (the C core), `parser` (the strict JSON text parser), `jsonl`
(JSON Lines helpers), `errors` (the core's exceptions), `hashing` (the one module that hashes:
pycryptodome, never hashlib) and `digests` (digests of canonical JSON and their representations).
"""
