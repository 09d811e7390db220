"""`fastjcs.arrow`, the public name of `fastjcs.bulk.arrow`: JSON texts in Apache Arrow columns
(`canonicalize_array`, `digest_array`, `Results`). See that module for the whole story."""

from __future__ import annotations

from .bulk.arrow import Results, canonicalize_array, digest_array

__all__ = ["Results", "canonicalize_array", "digest_array"]
