"""The built-in attention variants, each registered through pluggy like any third-party plugin."""
