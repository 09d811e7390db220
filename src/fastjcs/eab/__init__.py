"""cMCP Execution Action Binding v1: bindings, their witnesses, and the execution registry.

    >>> from fastjcs import eab
    >>> eab.binding("spiffe://agent.example/payments/prod", "transfer", "account:merchant-7",
    ...             "2026-09-10T16:30:00Z")
    'sha256:305b05b249b159fa9dea8cbbfaa0c19b71aa867a6da718693c1c7d4b83f52fe4'

Modules: `bindings` (the binding of an action, its preimage, verification and comparison),
`registry` (`ExecutionRegistry`: admit each logical operation once, in SQLite), `errors` (the
errors of both). Every public name of the three is re-exported here.
"""

from __future__ import annotations

from . import bindings as _bindings
from . import errors as _errors
from . import registry as _registry
from .bindings import *  # noqa: F401,F403 - binding, preimage, verify, classify, ...
from .errors import *  # noqa: F401,F403 - ActionBindingError, RegistryError, ...
from .registry import *  # noqa: F401,F403 - ExecutionRegistry, Admission, ...

__all__ = [*_bindings.__all__, *_registry.__all__, *_errors.__all__]
