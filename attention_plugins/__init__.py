"""The built-in attention variants, each registered through pluggy like any third-party plugin.

Their words (titles, summaries, notes, option help, formulas) are msgids marked with core.i18n.mark: the app
shows core.i18n.lookup(text), so they read in the page's language; a third-party plugin's text stays as written.
"""
