"""The Generate tab: its texts are msgids now (core/locales/*.po, core.i18n), made where they are made."""

EXACT: dict[str, str] = {}
TEMPLATES: list[tuple[str, str]] = []
