"""Corpora for the interop lab: documents to put to a canonicalizer, each with the answer it owes.

A `Case` is one document (bytes, possibly invalid UTF-8), the category and the RFC clause it
tests, and its expected canonical bytes (None: it must be refused). Four sources, all deterministic:

- `generate(seed, per_category)`: documents by category (`CATEGORIES`): number spellings and
  boundaries, strings, member order, structure, whitespace, syntax errors; valid and invalid. The
  expected bytes are fastjcs's, and they are checked as they are made: every case's validity must
  match what its category meant it to be, and every number case's whole canonical document is
  rebuilt independently (`es6_layout` over Python's shortest round-trip digits); a mismatch raises
  `CorpusCheckError` rather than yield a wrong expectation.
- `vector_cases(paths)`: the repository's JCS vectors (vectors/rfc8785, text-canonical,
  text-must-fail), expected bytes read from the vector files.
- `es6_cases(lines)`: the ES6 number corpus (its bit patterns are defined here), checked line by
  line against `es6_layout` and against the published SHA-256 at every published count it reaches.
- `user_cases(path)`: a JSON Lines file (a document per line) or a folder (a document per file).

`load` combines them from source names ("gen", "vectors", "es6:N", a path).
"""

from __future__ import annotations

# The sections register their categories as they are imported, in this order (the order of
# `generate`'s cases): numbers, strings, whitespace, order, structure, syntax.
from . import number, order, string, structure, syntax, whitespace  # noqa: F401
from .cases import (
    _REGISTRY,
    Case,
    CorpusCheckError,
    CorpusError,
    expectation,
    generate,
)
from .number import es6_layout
from .sources import (
    CANON_SOURCES,
    DEFAULT_SOURCES,
    ES6_PUBLISHED,
    ES6_STATIC_VALUES,
    QUICK_ES6,
    QUICK_LISTED,
    QUICK_SAMPLED,
    VECTOR_FOLDERS,
    es6_bit_patterns,
    es6_cases,
    es6_static_values,
    load,
    printable,
    quick_cases,
    user_cases,
    vector_cases,
)

# A category of listed cases only registers where its lists are; generate() puts those after
# every sampled category, as one module did.
for _name in [n for n, c in _REGISTRY.items() if c.make is None]:
    _REGISTRY[_name] = _REGISTRY.pop(_name)

#: category -> (clause, one-line description), for every category `generate` makes.
CATEGORIES: dict[str, tuple[str, str]] = {name: (c.clause, c.description) for name, c in _REGISTRY.items()}

__all__ = [
    "CATEGORIES",
    "CANON_SOURCES",
    "DEFAULT_SOURCES",
    "ES6_PUBLISHED",
    "ES6_STATIC_VALUES",
    "QUICK_ES6",
    "QUICK_LISTED",
    "QUICK_SAMPLED",
    "VECTOR_FOLDERS",
    "Case",
    "CorpusCheckError",
    "CorpusError",
    "es6_bit_patterns",
    "es6_cases",
    "es6_layout",
    "es6_static_values",
    "expectation",
    "generate",
    "load",
    "printable",
    "quick_cases",
    "user_cases",
    "vector_cases",
]
