"""The CPB vector handlers: each claims a kind of vector file (`claim`, in `HANDLERS` order), runs
the implementation on it and asserts every pinned value: preimage bytes, digests, verdicts. A
MUST-FAIL vector must fail for its stated `failure_reason` (`cpb_cases.FAILURE_REASONS`), and the
check categories it fired are recorded for the mutation probes (`cpb_mutants`).

The base class and shared helpers are in `cpb_handler_base`, the handlers in `cpb_handlers_text`
(canonical text and its transmission) and `cpb_handlers_refs` (typed references and registries).
"""

from __future__ import annotations

from .cpb_cases import Vector
from .cpb_handler_base import Handler
from .cpb_handlers_refs import (
    AssembledHandler,
    DerivedIdHandler,
    ProfileIndependenceHandler,
    RegistryLookupHandler,
    SnapshotHandler,
    StreamHandler,
    TypedRefHandler,
)
from .cpb_handlers_text import (
    AsTransmittedHandler,
    CheckerHandler,
    DivergenceHandler,
    HashEnvelopeHandler,
    JcsTextHandler,
    KatHandler,
    RepresentationHandler,
)

#: In claim order: the first handler that claims a file runs it.
HANDLERS: tuple[Handler, ...] = (
    SnapshotHandler(),
    AsTransmittedHandler(),
    HashEnvelopeHandler(),
    RepresentationHandler(),
    JcsTextHandler(),
    RegistryLookupHandler(),
    CheckerHandler(),
    DivergenceHandler(),
    TypedRefHandler(),
    ProfileIndependenceHandler(),
    StreamHandler(),
    AssembledHandler(),
    DerivedIdHandler(),
    KatHandler(),
)


def claim(v: Vector) -> Handler | None:
    return next((h for h in HANDLERS if h.claims(v)), None)
