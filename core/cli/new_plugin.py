"""`attention-lab new-plugin NAME`: a plugin package that installs and passes `attention-lab check NAME` as written."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "write a new plugin package (pyproject with the entry point, one @hookimpl module, a test)"

PYPROJECT = '''\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "{dist}"
version = "0.1.0"
description = "{title}: an attention variant for Attention Lab."
requires-python = ">=3.11"
dependencies = ["attention-lab"]

# The line that makes the lab find this plugin: entry-point group "attention_lab",
# name "{name}" (what ATTENTION_LAB_PLUGINS lists), value the module with the @hookimpl.
[project.entry-points.attention_lab]
{name} = "{module}"

[tool.setuptools]
py-modules = ["{module}"]
'''

MODULE = '''\
"""{title}: an Attention Lab plugin. Start from plain multi-head attention and change one piece."""

from __future__ import annotations

from core import AttentionModule, Variant, hookimpl


class {cls}(AttentionModule):
    """Plain multi-head attention until you override a piece; forward and trace both follow.

    Override ONE of these to make it your own (docs/plugins.md shows each):
      allowed(T, device)  which keys each query may see: a bool (T, T), True = may attend
      bias(T, device)     a float (H|1, T, T) added to the scores before the mask
      project(x)          how q (B, H, T, hd), k and v (B, Hkv, T, hd) are computed
      score(q, k)         the scores (B, H, T, T) from q and k (q @ kᵀ by default)
      normalise(masked)   the weights from the masked scores (softmax by default)
    """


VARIANT = Variant(
    name="{name}",
    title="{title}",
    summary="Plain multi-head attention, ready to be changed.",
    build={cls},
    notes="Say here what differs from plain multi-head attention, and why it matters.",
)


@hookimpl
def register_attention_variants(register) -> None:
    """Offer the variant to the lab."""
    register(VARIANT)
'''

TEST = '''\
"""The plugin through the lab's own conformance kit, as `attention-lab check {name}` runs it."""

import {module}

from core import AttentionConfig
from core.testing import assert_variant_conforms

pytest_plugins = ["core.testing"]


def test_{snake}_conforms(plugin_registry):
    registry = plugin_registry({module})  # the built-ins and this plugin, nothing else installed
    assert_variant_conforms(registry.variants["{name}"])
    assert_variant_conforms(registry.variants["{name}"], AttentionConfig(d_model=32, n_heads=4))
'''

README = '''\
# {dist}

{title}: an Attention Lab plugin.

```bash
attention-lab install -e .        # into the lab's own Python
attention-lab check {name}        # the conformance kit
python -m pytest tests            # the same kit, from pytest
```
'''


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="the variant's name: lower-case words joined by dashes, e.g. my-attention")
    parser.add_argument("--dir", type=Path, default=None,
                        help="where to write the package (default: ./attention-lab-NAME)")


def files(name: str) -> dict[str, str]:
    """Relative path -> text of every file the scaffold writes for variant `name`."""
    snake = name.replace("-", "_")
    fields = {
        "name": name,
        "snake": snake,
        "dist": f"attention-lab-{name}",
        "module": f"attention_lab_{snake}",
        "cls": "".join(part.capitalize() for part in name.split("-")) + "Attention",
        "title": name.replace("-", " ").capitalize(),
    }
    return {
        "pyproject.toml": PYPROJECT.format(**fields),
        f"{fields['module']}.py": MODULE.format(**fields),
        f"tests/test_{snake}.py": TEST.format(**fields),
        "README.md": README.format(**fields),
    }


def run(args: argparse.Namespace) -> int:
    from core.variant import name_problem

    if problem := name_problem(args.name):
        raise ValueError(f"the plugin's {problem}")
    folder = args.dir or Path(f"attention-lab-{args.name}")
    if folder.exists() and any(folder.iterdir()):
        raise ValueError(f"{folder} already exists and is not empty; choose another --dir")
    for relative, text in files(args.name).items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    print(f"wrote {folder}/ with the variant {args.name!r}; next:")
    print(f"  attention-lab install -e {folder}        (or: {sys.executable} -m pip install -e {folder})")
    print(f"  attention-lab check {args.name}")
    return 0
