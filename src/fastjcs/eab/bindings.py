"""cMCP Execution Action Binding v1 (the design contract in the docs, "Execution Action Binding v1").

The binding of an action is the digest of the JCS UTF-8 bytes of exactly this object::

    {"domain": "cmcp.execution-action-binding", "version": 1, "agent_id": A,
     "action_type": T, "action_scope": S, "action_timestamp": TS}

rendered ``"<algorithm>:<lowercase hex>"`` with sha256 or sha384. Domain and version are inside the
hashed bytes, so a binding computed for another domain or version never equals a v1 binding.

    >>> from fastjcs import eab
    >>> eab.binding("spiffe://agent.example/payments/prod", "transfer", "account:merchant-7",
    ...             "2026-09-10T16:30:00Z")
    'sha256:305b05b249b159fa9dea8cbbfaa0c19b71aa867a6da718693c1c7d4b83f52fe4'

The four fields are non-empty strings without lone surrogates. A str subclass (a StrEnum member)
is taken by its characters, which is what JCS writes. No length limit is imposed: the contract sets
none, and a limit here would refuse bindings that other implementations accept. Timestamps and
scopes are opaque strings; their syntax is the caller's policy. Every refusal of an input is an
ActionBindingError (a ValueError); NotV1BindingError, its subclass, says the input is a binding
preimage of another domain or version.
"""

from __future__ import annotations

import enum
import json
from typing import Any, NamedTuple, Union

from ..core import api
from ..core.digests import parse_digest
from ..core.errors import CanonicalizationError, UnsupportedAlgorithmError
from ..core.hashing import check_algorithm, raw_digest, render
from .errors import ActionBindingError, NotV1BindingError

__all__ = [
    "DOMAIN",
    "VERSION",
    "FIELDS",
    "ActionFields",
    "preimage",
    "binding",
    "parse_preimage",
    "is_v1_preimage",
    "verify",
    "same_binding",
    "Disposition",
    "classify",
    "Semantics",
    "same_operation",
]

DOMAIN = "cmcp.execution-action-binding"
VERSION = 1
#: The four action fields, in the order of the functions' parameters.
FIELDS = ("agent_id", "action_type", "action_scope", "action_timestamp")
_MEMBERS = ("domain", "version") + FIELDS

Preimage = Union[bytes, bytearray, memoryview, dict[str, Any]]


class ActionFields(NamedTuple):
    """The four action fields of a v1 binding, as `parse_preimage` returns them."""

    agent_id: str
    action_type: str
    action_scope: str
    action_timestamp: str


# ---------------------------------------------------------------------------------------------------
# Computing a binding
# ---------------------------------------------------------------------------------------------------


def _field(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise ActionBindingError(f"{name} must be a str, not {type(value).__name__}", name)
    text = str.__str__(value)  # the characters, whatever a subclass does with __eq__ or __str__
    if not text:
        raise ActionBindingError(f"{name} must not be empty", name)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ActionBindingError(f"{name} contains a lone surrogate (not UTF-8)", name) from None
    return text


def _v1_bytes(fields: tuple[str, str, str, str]) -> bytes:
    agent_id, action_type, action_scope, action_timestamp = fields
    return api.dumps(
        {
            "domain": DOMAIN,
            "version": VERSION,
            "agent_id": agent_id,
            "action_type": action_type,
            "action_scope": action_scope,
            "action_timestamp": action_timestamp,
        }
    )


def preimage(agent_id: str, action_type: str, action_scope: str, action_timestamp: str) -> bytes:
    """The bytes a v1 binding hashes: the JCS form of the six-member v1 object.

    >>> preimage("agent", "read", "doc:1", "2026-01-01T00:00:00Z")
    b'{"action_scope":"doc:1","action_timestamp":"2026-01-01T00:00:00Z","action_type":"read","agent_id":"agent","domain":"cmcp.execution-action-binding","version":1}'
    """
    return _v1_bytes(
        (
            _field("agent_id", agent_id),
            _field("action_type", action_type),
            _field("action_scope", action_scope),
            _field("action_timestamp", action_timestamp),
        )
    )


def binding(
    agent_id: str, action_type: str, action_scope: str, action_timestamp: str, algorithm: str = "sha256"
) -> str:
    """The v1 binding ``"<algorithm>:<lowercase hex>"`` of an action.

    The algorithm is checked first: anything but "sha256" or "sha384" (exact names) raises
    UnsupportedAlgorithmError. Then each field: ActionBindingError for an empty field, a lone
    surrogate or a value that is not a str.

    >>> binding("agent", "read", "doc:1", "2026-01-01T00:00:00Z", "sha384")[:7]
    'sha384:'
    >>> binding("agent", "read", "", "2026-01-01T00:00:00Z")
    Traceback (most recent call last):
      ...
    fastjcs.eab.errors.ActionBindingError: action_scope must not be empty
    """
    alg = check_algorithm(algorithm)
    return render(alg, raw_digest(preimage(agent_id, action_type, action_scope, action_timestamp), alg))


# ---------------------------------------------------------------------------------------------------
# Checking a preimage or a binding
# ---------------------------------------------------------------------------------------------------


def _is_json_one(value: object) -> bool:
    """True for a value JCS renders as the number 1 (1, 1.0, an IntEnum of 1; not True)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == 1


def parse_preimage(data: Preimage) -> ActionFields:
    """Check that `data` is a v1 binding preimage and return its four action fields.

    `data` is the preimage bytes or the object (a dict). The bytes decide: bytes must be exactly
    the JCS form (the bytes a binding hashes; another spelling of the same JSON hashes to another
    digest and is refused), and a dict is judged by the JCS bytes it would produce, so
    ``"version": 1.0`` is accepted in a dict (it is written ``1``) while ``true`` is not.

    Raises NotV1BindingError when the domain is not "cmcp.execution-action-binding" or the
    version is not 1; ActionBindingError for a member added, dropped or renamed, a field that is
    not a non-empty str without lone surrogates, or bytes that are not canonical JSON. A value
    that is neither bytes nor a dict is a TypeError.

    >>> parse_preimage(preimage("agent", "read", "doc:1", "2026-01-01T00:00:00Z")).action_scope
    'doc:1'
    >>> parse_preimage({"domain": "cmcp.other-binding", "version": 1, "agent_id": "a",
    ...                 "action_type": "t", "action_scope": "s", "action_timestamp": "ts"})
    Traceback (most recent call last):
      ...
    fastjcs.eab.errors.NotV1BindingError: domain is 'cmcp.other-binding', not 'cmcp.execution-action-binding'
    """
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
        try:
            canonical = api.canonicalize(raw)
        except CanonicalizationError as exc:
            raise ActionBindingError(f"preimage bytes are not strict JSON: {exc}") from exc
        if canonical != raw:
            raise ActionBindingError(
                "preimage bytes are not in JCS form: a binding hashes the "
                "canonical bytes, so other bytes are not its preimage"
            )
        obj = json.loads(raw)
    elif isinstance(data, dict):
        obj = data
    else:
        raise TypeError(f"a preimage is bytes or a dict, not {type(data).__name__}")
    if not isinstance(obj, dict):
        raise ActionBindingError(f"a preimage is a JSON object, not {type(obj).__name__}")
    return _check_object(obj)


def _check_object(obj: dict[Any, Any]) -> ActionFields:
    # Domain and version first: a preimage of another kind of binding says so, whatever its
    # other members are.
    if "domain" in obj:
        domain = obj["domain"]
        if not (isinstance(domain, str) and str.__str__(domain) == DOMAIN):
            raise NotV1BindingError(f"domain is {domain!r}, not {DOMAIN!r}", "domain")
    if "version" in obj:
        version = obj["version"]
        if not _is_json_one(version):
            raise NotV1BindingError(f"version is {version!r}, not {VERSION}", "version")
    missing = [name for name in _MEMBERS if name not in obj]
    extra = [name for name in obj if not (isinstance(name, str) and str.__str__(name) in _MEMBERS)]
    if missing or extra:
        parts: list[str] = []
        if extra:
            parts.append("unexpected member(s) " + ", ".join(map(repr, extra)))
        if missing:
            parts.append("missing member(s) " + ", ".join(map(repr, missing)))
        first = (missing or extra)[0]
        raise ActionBindingError(
            f"a v1 preimage has exactly the members {', '.join(_MEMBERS)}: " + "; ".join(parts),
            first if isinstance(first, str) else None,
        )
    return ActionFields(*(_field(name, obj[name]) for name in FIELDS))


def is_v1_preimage(data: Preimage) -> bool:
    """True when `parse_preimage(data)` accepts `data`; False for any ActionBindingError."""
    try:
        parse_preimage(data)
    except ActionBindingError:
        return False
    return True


def verify(binding: str, data: Preimage) -> bool:
    """True when `binding` is exactly the v1 binding of the preimage `data`.

    The algorithm is the binding's own prefix, and the comparison is on the complete rendered
    string. False when `data` is not a v1 preimage (another domain or version included) or the
    digest differs. A malformed binding string raises InvalidDigestError: the caller passed
    something that is not a binding at all.

    >>> pre = preimage("agent", "read", "doc:1", "2026-01-01T00:00:00Z")
    >>> verify(binding("agent", "read", "doc:1", "2026-01-01T00:00:00Z"), pre)
    True
    >>> verify(binding("agent", "read", "doc:2", "2026-01-01T00:00:00Z"), pre)
    False
    """
    parsed = parse_digest(binding)
    try:
        fields = parse_preimage(data)
    except ActionBindingError:
        return False
    return render(parsed.algorithm, raw_digest(_v1_bytes(fields), parsed.algorithm)) == str.__str__(binding)


def same_binding(a: str, b: str) -> bool:
    """Exact comparison of two rendered bindings, after checking both are well formed.

    The whole string is compared, algorithm included: the sha256 and the sha384 binding of one
    action are different bindings. A binding is public (a digest of the action), so a plain
    comparison is used, not a constant-time one. InvalidDigestError for a malformed string.

    >>> same_binding("sha256:" + "0" * 64, "sha256:" + "0" * 64)
    True
    """
    parse_digest(a)
    parse_digest(b)
    return str.__str__(a) == str.__str__(b)


class Disposition(enum.Enum):
    """The verdicts of the upstream vector file, for a preimage under an algorithm."""

    ACCEPT = "accept"
    REJECT_AS_V1_EXECUTION_ACTION_BINDING = "reject_as_v1_execution_action_binding"
    REJECT_UNSUPPORTED_ALGORITHM = "reject_unsupported_algorithm"


def classify(data: Preimage, algorithm: str = "sha256") -> Disposition:
    """The disposition of binding the preimage `data` under `algorithm`.

    REJECT_UNSUPPORTED_ALGORITHM when the algorithm is not sha256/sha384 (checked first);
    REJECT_AS_V1_EXECUTION_ACTION_BINDING when `data` is not a v1 preimage; ACCEPT otherwise.

    >>> classify(preimage("agent", "read", "doc:1", "2026-01-01T00:00:00Z"), "sha512").value
    'reject_unsupported_algorithm'
    """
    try:
        check_algorithm(algorithm)
    except UnsupportedAlgorithmError:
        return Disposition.REJECT_UNSUPPORTED_ALGORITHM
    if is_v1_preimage(data):
        return Disposition.ACCEPT
    return Disposition.REJECT_AS_V1_EXECUTION_ACTION_BINDING


# ---------------------------------------------------------------------------------------------------
# Logical-operation identity: the caller names the governing semantics
# ---------------------------------------------------------------------------------------------------


class Semantics(enum.Enum):
    """Which equality governs "the same logical operation" (the design contract in the docs, "The semantic witness").

    JSON_NUMBER: RFC 8785 / I-JSON, numbers are IEEE-754 doubles; two requests are the same
        operation when their JCS bytes are equal, so {"x": 1} and {"x": 1.0} are.
    PYTHON_TYPE: as a Python consumer sees the values; the JCS bytes must be equal and every
        value must have the same kind (int, float, bool, str, None, object, array) at the same
        place, so {"x": 1} and {"x": 1.0} are not. Lists and tuples are both arrays.
    """

    JSON_NUMBER = "json-number"
    PYTHON_TYPE = "python-type"


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, dict):
        return "object"
    return "array"  # list or tuple: anything else was refused by dumps


def same_operation(request_a: Any, request_b: Any, *, semantics: Semantics) -> bool:
    """Whether two requests are the same logical operation, under `semantics` (no default).

    There is no default on purpose: {"x": 1} and {"x": 1.0} have the same canonical form, yet a
    downstream consumer may treat them differently; only the governing schema or policy can say
    which equality applies. Both requests must be canonicalizable (what `dumps` raises, raises).

    >>> same_operation({"x": 1}, {"x": 1.0}, semantics=Semantics.JSON_NUMBER)
    True
    >>> same_operation({"x": 1}, {"x": 1.0}, semantics=Semantics.PYTHON_TYPE)
    False
    """
    if not isinstance(semantics, Semantics):
        raise TypeError(f"semantics must be a fastjcs.eab.Semantics member, not {semantics!r}")
    if api.dumps(request_a) != api.dumps(request_b):
        return False
    if semantics is Semantics.JSON_NUMBER:
        return True
    # Equal JCS bytes: same shape, same member names, same array lengths. Walk both, no recursion.
    stack = [(request_a, request_b)]
    while stack:
        a, b = stack.pop()
        kind = _kind(a)
        if kind != _kind(b):
            return False
        if kind == "object":
            stack.extend((a[key], b[key]) for key in a)
        elif kind == "array":
            stack.extend(zip(a, b))
    return True
