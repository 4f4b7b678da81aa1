"""The Lesson tab (core/ui/lesson_tab.py, core/serve/lessons.py): what the old walker still reads of it.

Every other text of the Lesson tab is a msgid now (core.i18n.t, core/locales/*.po). A lesson's own text is the
teacher's, one file per language (core/lessons/*.zh-CN.md): never translated here.
"""

EXACT: dict[str, str] = {
    "Lesson": "课程",  # the tab's title (core/ui/app.py keys it with the other tabs')
}

TEMPLATES: list[tuple[str, str]] = []
