"""简体中文 for the app: English text -> Chinese. The chapter's terms: 查询/键/值, 因果掩码, 缩放, 多头,
分组查询注意力, 滑动窗口.

EXACT: whole texts. TEMPLATES: texts with {named} values (a value is translated in turn, or read as a
list of PHRASES and numbers). KEEP: names shown as themselves in every language.
"""

EXACT: dict[str, str] = {}

TEMPLATES: list[tuple[str, str]] = []

PHRASES: dict[str, str] = {}

KEEP: set[str] = set()
