"""Run a CPB conformance vector suite, with mutation probes; what `fastjcs vectors DIR` calls.

    >>> summary = run("path/to/cpb-vectors")          # doctest: +SKIP
    >>> summary.ok, summary.counts()                   # doctest: +SKIP

Every `.json` file under the directory must be claimed by a handler (a JSON file nobody claims, or
that does not parse, fails the run, so a new kind of vector cannot be skipped silently); other files
(a README, notes) are not vectors: they are reported as ignored and do not fail the run. A handler
reads the vector, runs the implementation and asserts every pinned value: preimage bytes,
digests, verdicts. A MUST-FAIL vector must fail for its stated `failure_reason`, mapped explicitly
in `FAILURE_REASONS` to the exception or verdict that stands for it; an unmapped reason fails the
run.

Mutation probes: every MUST-FAIL vector records the check categories it fired (e.g.
`jcs-n:non-integer-number`, `cpb-check:P:empty-member`, `typed-ref:digest-alg-mismatch`). For
each category a generator in `GENERATORS` builds the condition-removed mutant (the same vector with
the defect taken out and its expectation flipped to a pass) and the handler runs again: the
category must no longer fire and the mutant must pass. A category without a generator, or whose
mutant does not flip, is reported assertion-free and fails the run.

The vector model and the drafts are in `cpb_cases`, the handlers in `cpb_handlers`
(their claim order; the classes in `cpb_handler_base`, `cpb_handlers_text`, `cpb_handlers_refs`), the
generators (written independently of the code under test) in `cpb_mutants`; the names a
caller of the runner uses are re-exported here.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..core.errors import FastJCSError
from .cpb_cases import (
    DEFAULT_DRAFT,
    DRAFTS,
    FAILURE_REASONS,
    FASTJCS,
    Implementation,
    Vector,
    failure_meaning,
    suite_draft,
)
from .cpb_handler_base import Handler, _must_fail
from .cpb_handlers import HANDLERS, claim
from .cpb_mutants import GENERATORS
from .results import ProbeOutcome, RunSummary, VectorOutcome

__all__ = [
    "DEFAULT_DRAFT",
    "DRAFTS",
    "FAILURE_REASONS",
    "FASTJCS",
    "GENERATORS",
    "HANDLERS",
    "Implementation",
    "Vector",
    "VectorOutcome",
    "claim",
    "failure_meaning",
    "iter_files",
    "probe",
    "run_vectors",
    "run_vector",
    "suite_draft",
]

# ---------------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------------


def run_vector(v: Vector, impl: Implementation = FASTJCS) -> tuple[Handler | None, VectorOutcome]:
    handler = claim(v)
    out = VectorOutcome(
        v.name, handler.name if handler else "unclaimed", _must_fail(v.doc), v.doc.get("failure_reason")
    )
    if handler is None:
        return None, out
    try:
        handler.run(v, impl, out)
    except Exception as exc:  # an implementation (or mutant) that raises where it should answer
        out.fail(f"raised {type(exc).__name__}: {exc}")
    return handler, out


def probe(v: Vector, handler: Handler, category: str, impl: Implementation = FASTJCS) -> ProbeOutcome:
    """Build the condition-removed mutant for `category` and check that the verdict flips."""
    generator = GENERATORS.get(category)
    if generator is None:
        return ProbeOutcome(category, v.name, None, False, "no generator builds a condition-removed mutant")
    try:
        mutant = generator(v, handler, category)
    except Exception as exc:
        return ProbeOutcome(
            category, v.name, generator.__name__, False, f"the generator failed: {type(exc).__name__}: {exc}"
        )
    _, outcome = run_vector(mutant, impl)
    if category in outcome.fired:
        return ProbeOutcome(category, v.name, generator.__name__, False, "the mutant still fires the check")
    if not outcome.passed:
        return ProbeOutcome(
            category,
            v.name,
            generator.__name__,
            False,
            "the mutant does not pass: " + "; ".join(outcome.failures or ["no assertion"]),
        )
    return ProbeOutcome(category, v.name, generator.__name__, True)


def iter_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*") if p.is_file())


def run_vectors(
    directory: str | Path, impl: Implementation = FASTJCS, *, probes: bool = True, draft: str | None = None
) -> RunSummary:
    """Run every vector under `directory` under `draft` (default: `suite_draft(directory)`: the
    newest, -06, except for fastjcs's shipped suite, -01); see the module docstring. Never raises
    for a vector; ValueError for an unknown draft."""
    impl = replace(impl, draft=suite_draft(directory, draft))
    root = Path(directory)
    outcomes: list[VectorOutcome] = []
    unclaimed: list[str] = []
    probe_outcomes: list[ProbeOutcome] = []
    ignored: list[str] = []
    for path in iter_files(root):
        name = path.relative_to(root).as_posix()
        if path.suffix != ".json":
            ignored.append(name)
            continue
        try:
            v = Vector.load(path, root)
        except (ValueError, FastJCSError) as exc:
            unclaimed.append(f"{name} (unreadable: {exc})")
            continue
        handler, out = run_vector(v, impl)
        if handler is None:
            unclaimed.append(name)
            continue
        if out.must_fail and out.passed and not out.fired:
            out.fail("a MUST-FAIL vector passed without firing any check")
        outcomes.append(out)
        if probes and out.passed:
            probe_outcomes.extend(probe(v, handler, category, impl) for category in sorted(out.fired))
    return RunSummary(
        str(root),
        impl.name if impl.draft == DEFAULT_DRAFT else f"{impl.name}, draft {impl.draft}",
        outcomes,
        unclaimed,
        probe_outcomes,
        ignored,
    )
