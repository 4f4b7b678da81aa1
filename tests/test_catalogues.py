"""Every msgid the code looks up has a translation in every catalogue, with the same {fields}.

The msgids are what Babel's own extractor finds in core/ and attention_plugins/ (the keywords of core.i18n), as
`pybabel extract` gives a translator; the catalogues are core/locales/*.po. A failure lists what is missing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from core import i18n

ROOT = Path(__file__).resolve().parents[1]
KEYWORDS = {"t": None, "t_n": (1, 2), "tc": ((1, "c"), 2), "mark": None, "static": None}


def extracted() -> dict[str, str]:
    """msgid -> where it is first used (file:line), for every string the code marks."""
    out: dict[str, str] = {}
    for folder in ("core", "attention_plugins"):
        for filename, line, msg, _comments, ctx in extract_from_dir(
                ROOT / folder, method_map=[("**.py", "python")], keywords=KEYWORDS, comment_tags=()):
            m = msg[0] if isinstance(msg, tuple) else msg  # t_n's (singular, plural): one message, its singular
            if m:
                out.setdefault(f"{ctx}{i18n.CONTEXT}{m}" if ctx else m, f"{folder}/{filename}:{line}")
    return out


def read(language: str):
    with (i18n.LOCALES / f"{language}.po").open("rb") as fh:
        return read_po(fh, locale=language.replace("-", "_"))


OTHERS = [lang for lang in i18n.languages() if lang != i18n.SOURCE]


def test_the_keywords_are_core_i18ns():
    assert KEYWORDS == i18n.KEYWORDS


def test_the_app_speaks_every_catalogue_in_core_locales():
    assert i18n.languages()[0] == "en"
    assert {"zh-CN"} <= set(OTHERS)


@pytest.mark.parametrize("language", OTHERS)
def test_every_msgid_has_a_translation(language):
    cat = read(language)
    have = {f"{m.context}{i18n.CONTEXT}{i}" if m.context else i: m
            for m in cat if m.id for i in ((m.id,) if isinstance(m.id, str) else m.id)}  # a plural: both ids
    missing = [f"{where}: {msgid!r}" for msgid, where in sorted(extracted().items(), key=lambda kv: kv[1])
               if msgid not in have or not have[msgid].string or have[msgid].fuzzy
               or (isinstance(have[msgid].string, tuple) and not all(have[msgid].string))]
    assert not missing, f"{len(missing)} msgids have no {language} translation:\n" + "\n".join(missing)


@pytest.mark.parametrize("language", OTHERS)
def test_a_catalogue_holds_only_msgids_the_code_uses(language):
    """A sentence the code no longer says leaves the catalogues (make catalogues drops it): no stale translation."""
    used = set(extracted())
    stale = [m.id for m in read(language) if m.id and
             (f"{m.context}{i18n.CONTEXT}{m.id}" if m.context else (m.id if isinstance(m.id, str) else m.id[0]))
             not in used]
    assert not stale, f"{len(stale)} msgids of {language}.po are used nowhere (run make catalogues): {stale[:5]}"


def fields(text: str) -> set[str] | None:
    """The {name} fields str.format fills in text; None when text is no format string (LaTeX, a JSON example)."""
    if "\\" in text:  # typeset maths: its braces are LaTeX's
        return None
    try:
        names = i18n.field_names(text)
    except ValueError:
        return None
    return {n for n in names if n.isidentifier()}


@pytest.mark.parametrize("language", OTHERS)
def test_a_translation_keeps_its_msgids_fields(language):
    wrong = []
    for m in read(language):
        if not m.id or not m.string:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        want = [fields(i) for i in ids]
        if any(w is None for w in want):
            continue
        want_all = set().union(*want)
        for s in strings:
            got = fields(s)
            if got is None or got - want_all or (len(ids) == 1 and got != want_all):
                wrong.append(f"{ids[0]!r} -> {s!r}: fields {got} for {sorted(want_all)}")
    assert not wrong, "\n".join(wrong)


def test_a_missing_translation_reads_as_the_msgid_and_fields_fill_after_lookup():
    with i18n.speaking("zh-CN"):
        assert i18n.t("no such msgid {x}", x=3) == "no such msgid 3"
    assert i18n.normal("zh-TW") == "zh-CN" and i18n.normal("fr-FR") == "en" and i18n.normal(None) == "en"
