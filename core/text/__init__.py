"""Text both tokenizers share: the Chinese word segmenter."""
