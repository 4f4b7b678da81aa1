"""The Mistakes & interventions tab: its texts are msgids now (core/locales/*.po, core.i18n), made where they are made.

KEEP: words the old walker's leftover check reads as names in the cards' Chinese (torch's own words).
"""

EXACT: dict[str, str] = {}
TEMPLATES: list[tuple[str, str]] = []
KEEP: set[str] = {"exp", "dtype", "meta", "cpu", "nan"}
