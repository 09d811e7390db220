"""Declared transforms between domains, applied before a digest is computed.

- `reassemble_stream`: the `stream-reassemble` transform (version 1): the transport-delivered
  domain is a list of server-sent delta chunks; the model-produced domain is their concatenation.
  The terminal chunk (`"done": true`) bounds the preimage: without it the stream is incomplete and
  nothing is digested, even when the partial text happens to be JSON.
- `assemble_preimage`: an assembled preimage per a declared member mapping (RFC 6901 pointers from
  the source object to the preimage, plus declared constants). Without a mapping the member names
  of the preimage are not fixed, so nothing is assembled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.api import refuse_single
from .errors import MemberMappingError, MemberMappingUndeclaredError, StreamError, StreamIncompleteError


def reassemble_stream(source: Sequence[Mapping[str, Any]]) -> bytes:
    """Concatenate the `chunk` strings of a complete stream, in arrival order, as UTF-8 bytes.

    Raises StreamIncompleteError when no chunk carries `"done": true`, StreamError for a malformed
    item or for chunks after the terminal one; TypeError when `source` is one chunk object, a
    str or a bytes-like object rather than a sequence of chunks.
    """
    refuse_single(source, "reassemble_stream takes a sequence of chunk objects", "pass a one-chunk stream as [chunk]")
    parts: list[str] = []
    done = False
    for n, item in enumerate(source):
        if done:
            raise StreamError(f"chunk {n} arrives after the terminal chunk")
        if not isinstance(item, Mapping) or not isinstance(item.get("chunk"), str):
            raise StreamError(f"chunk {n} is not an object with a string `chunk`")
        marker = item.get("done", False)
        if marker is not True and marker is not False:
            raise StreamError(f"chunk {n}: `done` must be true or false")
        parts.append(item["chunk"])
        done = marker
    if not done:
        raise StreamIncompleteError(
            "the stream ends without its terminal chunk (`done: true`); a partial stream has no preimage"
        )
    return "".join(parts).encode("utf-8", "surrogatepass")


def _pointer(pointer: Any) -> list[str]:
    """RFC 6901: "/a/b~1c" -> ["a", "b/c"]; the whole document ("") is not a member place."""
    if not isinstance(pointer, str) or not pointer.startswith("/"):
        raise MemberMappingError(f"{pointer!r} is not a JSON pointer to a member")
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/")]


def _get(source: Any, pointer: str) -> Any:
    node = source
    for part in _pointer(pointer):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and (part == "0" or part[0] != "0") and int(part) < len(node):
            node = node[int(part)]
        else:
            raise MemberMappingError(f"the source has nothing at {pointer}")
    return node


def _put(target: dict[str, Any], pointer: str, value: Any) -> None:
    *parents, leaf = _pointer(pointer)
    node = target
    for part in parents:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise MemberMappingError(f"{pointer} crosses a member that is not an object")
    if leaf in node:
        raise MemberMappingError(f"two mapped members land on {pointer}")
    node[leaf] = value


def assemble_preimage(source: Mapping[str, Any], member_mapping: Mapping[str, Any] | None) -> dict[str, Any]:
    """The object a digest context's member mapping derives from `source` (values are shared).

    `member_mapping` is `{"fields": [{"source_pointer", "preimage_pointer"}], "constants":
    [{"value", "preimage_pointer"}]}`; None (undeclared) raises MemberMappingUndeclaredError.
    """
    if member_mapping is None:
        raise MemberMappingUndeclaredError(
            "the digest context declares a field set but no member mapping: the preimage's member "
            "names are not fixed, so two implementations may assemble different bytes"
        )
    if not isinstance(member_mapping, Mapping):
        raise MemberMappingError("member_mapping must be an object")
    out: dict[str, Any] = {}
    for item in member_mapping.get("fields", ()):
        _put(out, item["preimage_pointer"], _get(source, item["source_pointer"]))
    for item in member_mapping.get("constants", ()):
        _put(out, item["preimage_pointer"], item["value"])
    return out
