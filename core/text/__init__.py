"""Text both tokenizers share: the Chinese word segmenter and the scripts' Unicode ranges."""
