"""The conformance harness: fastjcs run against vector suites, ours and upstream.

Modules: `cpb_vectors` and `eab_vectors` (the vector-suite runners, with mutation probes; the
CPB runner stands on `cpb_cases`, what a vector is and means, `cpb_handlers` (on
`cpb_handler_base`, `cpb_handlers_text`, `cpb_handlers_refs`) and `cpb_mutants`),
`results` (their one result and summary type), `reader` (the token-preserving JSON reader the
runners and the lab share), `protocol` (the serve-vector protocol) and `suites/` (the vector
suites `fastjcs vectors` runs by default, shipped as package data).
"""

from __future__ import annotations

from pathlib import Path

#: The vector suites shipped with fastjcs (package data): cpb/ and eab/.
SUITES = Path(__file__).resolve().with_name("suites")


def default_suites() -> list[Path]:
    """The suites `fastjcs vectors` and `fastjcs crosscheck` run when none is named: fastjcs's
    own CPB and EAB suites, shipped in the package, so they run from an installed wheel too.
    (Other suites, such as the upstream ones, run when named by path.)"""
    return [SUITES / "cpb", SUITES / "eab"]
