"""Passwords never shown: the PostgreSQL URL's secrets masked in messages, paths and chained
exceptions (`Redactor`, `redact`)."""

from __future__ import annotations

import contextlib
import re
import urllib.parse

try:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict as _conninfo_to_dict
except ImportError:  # pragma: no cover - depends on the installation
    psycopg = None

_MASK = "***"
# A URL anywhere in a text: its userinfo password, up to the last "@" before the query.
_URL_USERINFO = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^:@/?#\s\"']*):[^?#\s\"']*@")
# A password parameter of a URL query or a key=value conninfo string ("pass" anywhere in its name,
# percent-encoded or not, quoted or not).
_PASSWORD_PARAM = re.compile(
    r"(?P<key>[A-Za-z0-9_%-]*(?:p|%[57]0)(?:a|%[46]1)(?:s|%[57]3)(?:s|%[57]3)[A-Za-z0-9_%-]*)"
    r"(?P<sep>\s*=\s*)(?P<value>'(?:[^'\\]|\\.)*'?|[^&\s\"]*)",
    re.IGNORECASE,
)


def _unquote(text: str) -> str:
    """Percent-decoding that never fails (an invalid escape stays as written)."""
    return urllib.parse.unquote(text, errors="replace")


def _secrets(url: str) -> list[str]:
    """Every spelling of the passwords in `url` (as written and percent-decoded), longest first."""
    found: set[str] = set()
    rest = url.split("://", 1)[1] if "://" in url else url
    authority = re.split(r"[?#]", rest, maxsplit=1)[0]
    if "@" in authority:
        userinfo = authority.rsplit("@", 1)[0]
        if ":" in userinfo:
            found.add(userinfo.split(":", 1)[1])
    for match in _PASSWORD_PARAM.finditer(url):
        found.add(match["value"])
    spellings = found | {_unquote(s) for s in found} | {s.strip("'") for s in found}
    if psycopg is not None:
        with contextlib.suppress(Exception):  # a URL libpq cannot parse: the spellings above
            for key, value in _conninfo_to_dict(url).items():
                # libpq's reading of a password with an unencoded "@" or "/" is a piece of the
                # one above, masked with it
                if "pass" in key and isinstance(value, str) and not any(value in s for s in spellings):
                    spellings.add(value)
    return sorted((s for s in spellings if s), key=len, reverse=True)


class Redactor:
    """Removes the passwords of one target URL from any text."""

    def __init__(self, url: str) -> None:
        self._secrets = _secrets(url)
        self._pattern = re.compile("|".join(map(re.escape, self._secrets))) if self._secrets else None

    def __call__(self, text: str) -> str:
        text = _URL_USERINFO.sub(lambda m: f"{m['head']}:{_MASK}@", text)
        text = _PASSWORD_PARAM.sub(lambda m: f"{m['key']}{m['sep']}{_MASK}", text)
        if self._pattern is not None:
            text = self._pattern.sub(_MASK, text)
        return text

    def scrub(self, exc: BaseException) -> None:
        """Remove the passwords from the text of `exc` and of every exception chained to it."""
        seen: set[int] = set()
        todo: list[BaseException | None] = [exc]
        while todo:
            item = todo.pop()
            if item is None or id(item) in seen:
                continue
            seen.add(id(item))
            item.args = tuple(self(a) if isinstance(a, str) else a for a in item.args)
            notes = getattr(item, "__notes__", None)
            if isinstance(notes, list):
                notes[:] = [self(n) if isinstance(n, str) else n for n in notes]
            todo += [item.__cause__, item.__context__]


def redact(url: str) -> str:
    """The URL without its passwords, for messages."""
    return Redactor(url)(url)
