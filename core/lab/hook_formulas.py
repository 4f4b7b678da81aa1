"""Step through's formula for each stage a variant changes, read from the hooks its class overrides.

A variant that overrides bias() but declares no formulas still shows its bias: the lab reads the
class, so what a student sees is what runs. A formula the variant declares (Variant.formulas) wins.
"""

from __future__ import annotations

import math

from ..attention import NEG_INF, AttentionModule
from ..i18n import mark

HOOKS = ("project", "score", "bias", "allowed", "normalise", "merge")  # the hooks Step through can name; and fill
DERIVED = {  # stage -> formula msgid when the class overrides the hook; {placeholders} as in steps.FORMULAS
    "project": {
        "q": mark("Q = project(x): the variant's own queries  (head {head})"),
        "k": mark("K = project(x): the variant's own keys  (K/V head {kv_head})"),
        "v": mark("V = project(x): the variant's own values  (K/V head {kv_head})"),
    },
    "score": {"scores": mark("scores = score(Q, K): the variant's own, not Q · Kᵀ")},
    "bias": {"scaled": mark("scaled = scores {scale} + bias(T), the variant's bias, d_head = {d_head}")},
    "allowed": {"mask": mark("mask = allowed(T): the variant's own, True where a query may attend to a key")},
    "fill": {"masked": mark("masked = scaled, with {fill} where the mask says no")},
    "normalise": {"weights": mark("weights = normalise(masked): the variant's own function of each row")},
    "merge": {"output": mark("output = merge(all heads' context): the variant's own")},
}
BIAS_UNSCALED = mark("scaled = scores + bias(T), the variant's bias (this variant does not divide by √d_head)")


def hook_class(variant: object, module: object = None) -> type | None:
    """The AttentionModule class whose hooks ran: the module's, else the variant's build when it is a class."""
    if isinstance(module, AttentionModule):
        return type(module)
    build = getattr(variant, "build", None)
    return build if isinstance(build, type) and issubclass(build, AttentionModule) else None


def overridden(cls: type | None) -> set[str]:
    """Which of HOOKS (and 'fill') the class changes from AttentionModule's stock formula."""
    if cls is None:
        return set()
    out = {h for h in HOOKS if getattr(cls, h, None) is not getattr(AttentionModule, h)}
    fill = getattr(cls, "fill", NEG_INF)
    if not (isinstance(fill, float) and math.isinf(fill) and fill < 0):
        out.add("fill")
    return out


def derived_formulas(cls: type | None, uses_scaling: bool = True) -> dict[str, str]:
    """Stage -> formula (a msgid, looked up where it is shown) for every stage whose hook the class overrides."""
    hooks = overridden(cls)
    out: dict[str, str] = {}
    for hook in HOOKS + ("fill",):
        if hook in hooks:
            out.update(DERIVED[hook])
    if "bias" in hooks and not uses_scaling:
        out["scaled"] = BIAS_UNSCALED
    return out


def fill_text(cls: type | None) -> str:
    """The {fill} placeholder: what forbidden positions of `masked` hold."""
    fill = getattr(cls, "fill", NEG_INF) if cls is not None else NEG_INF
    return "-inf" if fill == NEG_INF else f"{fill:g}"
