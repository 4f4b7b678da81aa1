"""简体中文 for the app: English text -> Chinese, one module per area, merged here for core.ui.i18n.

The chapter's terms: 查询/键/值, 因果掩码, 缩放 (√d 缩放), 多头, 分组查询注意力, 滑动窗口, 注意力权重, 词元, 头, 层,
插件, 变体, KV 缓存, 轨迹, 一致性检查; softmax stays softmax.

EXACT: whole texts. TEMPLATES: texts with {named} values (a value is translated in turn, or read as a list of
PHRASES and numbers; a value quoted in the template, '{q}', is the reader's own text and stays as it is).
KEEP: names shown as themselves in every language.
"""

from . import chapter, common, errors, generate, lab, lesson, page, plugins, real_model, views

_AREAS = (common, page, views, lab, plugins, errors, chapter, generate, real_model, lesson)

EXACT: dict[str, str] = {}
TEMPLATES: list[tuple[str, str]] = []
PHRASES: dict[str, str] = {}
for _area in _AREAS:
    EXACT.update(getattr(_area, "EXACT", {}))
    TEMPLATES.extend(getattr(_area, "TEMPLATES", []))
    PHRASES.update(getattr(_area, "PHRASES", {}))

KEEP: set[str] = set().union(*(getattr(_area, "KEEP", set()) for _area in _AREAS))
