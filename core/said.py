"""A sentence kept as its msgid and fields, said in the reader's language each time it is shown.

For text that outlives the request that made it (a plugin's load error, a plugin switched off) or is made before
anyone reads it: `str(said)` is `core.i18n.t(msgid, **fields)` in the current language, and a field that is itself a
Said is said in that language too. `Said.t` and `Said.t_n` read like the calls they defer (and are extracted as
them: the extractor knows t and t_n by name):

    reason = Said.t("could not be imported: {error}", error=one_line(exc))
    Said.t_n("a {kind} of {n} item", "a {kind} of {n} items", 3, kind="list")
"""

from __future__ import annotations

from typing import Any

from . import i18n


class Said:
    """A msgid (and its plural) with its fields; str() is the sentence in the current language."""

    __slots__ = ("msgid", "plural", "fields")

    def __init__(self, msgid: str, /, *, plural: str | None = None, **fields: Any) -> None:
        self.msgid, self.plural, self.fields = msgid, plural, fields

    @classmethod
    def t(cls, msgid: str, /, **fields: Any) -> Said:
        """t(msgid, **fields), said when shown."""
        return cls(msgid, **fields)

    @classmethod
    def t_n(cls, singular: str, plural: str, n: int, /, **fields: Any) -> Said:
        """t_n(singular, plural, n, **fields), said when shown."""
        return cls(singular, plural=plural, n=n, **fields)

    def __str__(self) -> str:
        fields = {k: str(v) if isinstance(v, Said) else v for k, v in self.fields.items()}
        if self.plural is None:
            return i18n.t(self.msgid, **fields)
        n = fields.pop("n")
        return i18n.t_n(self.msgid, self.plural, n, **fields)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def english(self) -> str:
        """The sentence in the msgids' language, whatever the current one (a record, a log, the CLI)."""
        with i18n.speaking(i18n.SOURCE):
            return str(self)

    def __repr__(self) -> str:
        return f"Said({self.msgid!r}, plural={self.plural!r}, **{self.fields!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Said) and (self.msgid, self.plural, self.fields) == (
            other.msgid, other.plural, other.fields)

    def __hash__(self) -> int:
        return hash((self.msgid, self.plural, tuple(sorted(self.fields))))

    def __reduce__(self) -> tuple:  # pickles (to a worker process and back) with its keyword fields
        return (_said, (self.msgid, self.plural, self.fields))


def _said(msgid: str, plural: str | None, fields: dict[str, Any]) -> Said:
    return Said(msgid, plural=plural, **fields)
