"""Which keys look secret, a fast scan for them in event data, and the value redactor.

Every string written goes through the redaction engine's rules (``amplifier_hooks_redact``,
:func:`value_redactor`), whatever its key: a token under ``env: {GH_PAT: ...}`` or inside
a ``curl -H 'Authorization: ...'`` command in a module's config is redacted like one in a
tool's output.

A key is secret when one of the secret words is one of its words. Keys are split into words
the way people write them: ``snake_case``, ``kebab-case``, ``dotted.names``, spaces and
``camelCase`` humps all separate words, and case does not matter. So ``api_key``, ``X-Api-Key``,
``accessToken``, ``client_secret`` and ``Authorization`` are secret, while ``input_tokens``,
``max_tokens`` and ``tokenizer`` are not (``tokens`` is not the word ``token``).

Values under a secret key are masked whatever they hold, except numbers, booleans and
``None``, which cannot carry a credential and keep counts like ``token_count`` readable.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from amplifier_hooks_redact import Redactor

__all__ = [
    "BUILTIN_SECRET_WORDS",
    "MASK",
    "SCAN_DEPTH",
    "SecretKeys",
    "normalize_key",
    "value_engine",
    "value_redactor",
]

#: Secret words that are always masked; ``redact_keys`` adds more.
BUILTIN_SECRET_WORDS: Final[tuple[str, ...]] = (
    "api_key",
    "apikey",
    "access_key",
    "private_key",
    "authorization",
    "token",
    "password",
    "passwd",
    "secret",
    "cookie",
    "credentials",
    "credential",
    "creds",
    "passphrase",
    "pass",
    "pwd",
    "pw",
    "auth",
    "pat",
)

#: What a masked value is replaced with.
MASK: Final = "[REDACTED]"

_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[^0-9a-z]+")
_SAFE_LIMIT: Final = 50_000
#: Data nested deeper than this is handed to the careful (slower) encoder.
SCAN_DEPTH: Final = 64
_CONTAINERS: Final = (dict, list, tuple)
_LISTS: Final = (list, tuple)
_LEAVES: Final = frozenset({str, int, float, bool, type(None)})


def normalize_key(key: str) -> str:
    """``X-Api-Key`` -> ``x_api_key``; ``accessToken`` -> ``access_token``."""
    return _SEPARATORS.sub("_", _HUMP.sub("_", key).lower()).strip("_")


_MEMO_DEPTH: Final = 100
"""Lists nested up to this deep have their items remembered (:meth:`SecretKeys.scan`)."""


class SecretKeys:
    """Decides whether a key is secret (cached per key) and scans nested data for such keys.

    The items of lists found without a secret key are remembered (a conversation carried by
    every request) with a copy of what they held, and skipped while they still equal it
    (:class:`~amplifier_hooks_redact.memo.CleanMemo`). A remembered item nests at most 64
    levels and is skipped only above ``_MEMO_DEPTH``, so whatever it is met in stays below
    the depth where the careful encoder would write anything else for it."""

    __slots__ = ("_memo", "_safe", "_words")

    def __init__(self, extra_words: Iterable[str] = ()) -> None:
        from amplifier_hooks_redact.memo import CleanMemo

        words = {normalize_key(w) for w in (*BUILTIN_SECRET_WORDS, *extra_words)}
        self._words: tuple[str, ...] = tuple(sorted(f"_{w}_" for w in words if w))
        self._safe: set[object] = set()
        self._memo = CleanMemo()

    @property
    def words(self) -> tuple[str, ...]:
        """The normalized secret words."""
        return tuple(w.strip("_") for w in self._words)

    def is_secret(self, key: object) -> bool:
        """True when ``key`` is a string whose words include a secret word."""
        if key in self._safe:
            return False
        if isinstance(key, str):
            padded = f"_{normalize_key(key)}_"
            if any(word in padded for word in self._words):
                return True
        if len(self._safe) >= _SAFE_LIMIT:
            self._safe.clear()
        self._safe.add(key)
        return False

    def any_secret(self, keys: Collection[object]) -> bool:
        """True when one of ``keys`` is secret (:meth:`is_secret`)."""
        if self._safe.issuperset(keys):
            return False
        return any(self.is_secret(key) for key in keys)

    def scan(self, value: Any, depth: int = 0) -> bool:
        """True when any mapping key inside ``value`` (dicts, lists, tuples) is secret.

        Also true when the data nests deeper than :data:`SCAN_DEPTH` (or loops back on
        itself), so that the careful encoder takes over. Only containers the JSON encoder
        writes directly are walked; other objects are checked after they are converted.
        This runs on every logged event, so it leans on set operations done in C.
        """
        memo = None
        if isinstance(value, dict):
            if not self._safe.issuperset(value) and any(self.is_secret(k) for k in value):
                return True
            items: Iterable[Any] = value.values()
        elif isinstance(value, _LISTS):
            items = value
            if depth < _MEMO_DEPTH:
                memo = self._memo
        else:
            return False
        if _LEAVES.issuperset(map(type, items)):
            return False
        for item in items:
            if item.__class__ not in _LEAVES and isinstance(item, _CONTAINERS):
                if memo is not None and memo.known(item):
                    continue  # found without a secret key before, and unchanged since
                if depth >= SCAN_DEPTH or self.scan(item, depth + 1):
                    return True
                if memo is not None:
                    memo.remember(item)
        return False


def value_engine() -> Redactor:
    """The redaction engine with its default rules (secrets and PII): the process's one,
    compiled on first use and shared with every other session and module that uses them."""
    from amplifier_hooks_redact import RedactionConfig, shared_redactor

    return shared_redactor(RedactionConfig())


def value_redactor(engine: Redactor | None = None, *, memo: bool = False) -> Callable[[Any], Any]:
    """The redaction engine's default rules (secrets and PII), or ``engine``, as a function
    over nested data: the data back with every secret in its strings replaced, the same
    object when there is none. With ``memo``, the function remembers the list items it found
    clean (a conversation carried by every request) and does not look at them again while
    they hold what they held (:class:`~amplifier_hooks_redact.memo.CleanMemo`); such a
    function belongs to one logger and one thread."""
    redactor = engine if engine is not None else value_engine()
    if memo:
        from amplifier_hooks_redact.memo import CleanMemo

        seen = CleanMemo()

        def redact_remembering(data: Any) -> Any:
            return redactor.redact(data, seen)[0]

        return redact_remembering

    def redact(data: Any) -> Any:
        return redactor.redact(data)[0]

    return redact
