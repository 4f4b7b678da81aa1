"""The Step-through tab's numbers: each stage of one head as a labelled matrix, and the trace as JSON."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from ..config import AttentionConfig
from ..i18n import lookup, mark, t, t_n
from ..mistakes import ConfigError, whole
from ..variant import Variant
from .hook_formulas import derived_formulas, fill_text, hook_class, overridden
from .session import Run, rounded
from .text import sentences

# The softmax path's stage names and formulas (msgids, looked up where a stage is made). A hook the variant's class
# overrides replaces its stage's formula (hook_formulas.DERIVED); Variant.stage_names and Variant.formulas replace any
# of them. {placeholders}: head, kv_head, d_head, n_heads, n_kv_heads, d_model, scale ("/ √d_head", or "(not
# scaled)"), fill ("-inf" unless the class sets fill), and every option by name (e.g. {window}).
STAGE_NAMES = {"q": "Q", "k": "K", "v": "V", "scores": mark("scores"), "scaled": mark("scaled"), "mask": mark("mask"),
               "masked": mark("masked"), "weights": mark("weights"), "context": mark("context"),
               "output": mark("output")}
FORMULAS = {
    "q": mark("Q = x · W_q  (head {head})"),
    "k": mark("K = x · W_k  (K/V head {kv_head})"),
    "v": mark("V = x · W_v  (K/V head {kv_head})"),
    "scores": mark("scores = Q · Kᵀ"),
    "scaled": mark("scaled = scores {scale}, d_head = {d_head}"),
    "mask": mark("mask: True where a query may attend to a key"),
    "masked": mark("masked = scaled, with -inf where the mask says no"),
    "weights": mark("weights = softmax(masked) over each row"),
    "context": mark("context = weights · V"),
    "output": mark("output = merge(all heads' context) · W_o"),
}
UNSCALED = mark("scaled = scores (this variant does not divide by √d_head)")
NOT_NORMALISED = mark("weights = the variant's own function of masked (rows need not sum to 1)")
NOT_SCALED = mark("(not scaled)")  # the {scale} of a formula when the scores are not divided by √d_head
OWN_NORMALISE = mark("{formula} (rows need not sum to 1)")


@dataclass(frozen=True)
class Stage:
    """One matrix a student reads: its name, the formula that made it, its shape, and its rows."""

    name: str
    formula: str
    shape: tuple[int, ...]
    rows: list[list[float | str]]  # matrix values; -inf as the string "-inf"
    columns: list[str]  # column headers (tokens for (T, T) stages, dims otherwise)
    latex: str = ""  # the formula as LaTeX, for typeset maths ("" = show the plain formula)
    columns_are_tokens: bool | None = None  # None: decided from the name ((T, T) stages are token x token)
    field: str = ""  # the trace field it shows ("scores", ...): the name is in the reader's language, this is not


# The built-in stages' formulas, typeset in the Step-through tab. The maths reads the same in every language; the
# words in it (⟨IF⟩, ⟨OTHERWISE⟩, ⟨ROW⟩) are looked up where a formula is made (latex()).
_TEX = {
    "Q": r"Q = X\,W_q^{(h)}",
    "K": r"K = X\,W_k^{(g)}",
    "V": r"V = X\,W_v^{(g)}",
    "scores": r"S = Q\,K^{\top}",
    "scaled": r"\tilde S = \frac{S}{\sqrt{d_{\text{head}}}}",
    "scaled (off)": r"\tilde S = S",
    "scaled + bias": r"\tilde S = \frac{S}{\sqrt{d_{\text{head}}}} + B",
    "scaled (off) + bias": r"\tilde S = S + B",
    "masked": r"M_{ij} = \begin{cases} \tilde S_{ij} & ⟨IF⟩ \\ -\infty & ⟨OTHERWISE⟩ \end{cases}",
    "weights": r"A = \operatorname{softmax}_{⟨ROW⟩}(M)",
    "context": r"C = A\,V",
    "output": r"O = \big[\,C^{(0)} \cdots C^{(H-1)}\big]\,W_o",
}
TEX_WORDS = {  # marker -> (msgid, its {fields} as symbols)
    "⟨IF⟩": (mark("if {i} may attend to {j}"), {"i": "i", "j": "j"}),
    "⟨OTHERWISE⟩": (mark("otherwise"), {}),
    "⟨ROW⟩": (mark("row"), {}),
}


def tex_words(msgid: str, say=t, **symbols: str) -> str:
    """A sentence inside typeset maths: its words as \\text{...} in the reader's language, each {field} a symbol."""
    parts = say(msgid, **{k: f"\0{v}\0" for k, v in symbols.items()}).split("\0")  # words, symbol, words, ...
    return " ".join(rf"\text{{{p}}}" if i % 2 == 0 else p for i, p in enumerate(parts) if p)


def latex(key: str, say=t) -> str:
    """A built-in stage's formula as LaTeX, its words in the reader's language ("" for a stage it does not know)."""
    tex = _TEX.get(key, "")
    for marker, (msgid, symbols) in TEX_WORDS.items():
        if marker in tex:
            tex = tex.replace(marker, tex_words(msgid, say, **symbols))
    return tex


LATEX = {key: latex(key, say=lambda msgid, **fields: msgid.format(**fields)) for key in _TEX}  # in English
TOKEN_STAGES = ("scores", "scaled", "masked", "weights")  # (T, T): rows and columns are tokens
SHAPE_TEXT = mark("shape {shape}")


def formula_markdown(stage: Stage, scaled: bool = True) -> str:
    """The stage's formula as typeset maths (Markdown with $$ LaTeX $$) and its shape; the plain formula when
    no LaTeX is known (a plugin's own stage: its words, never the softmax path's maths)."""
    tex = stage.latex
    shape = t(SHAPE_TEXT, shape=" × ".join(str(n) for n in stage.shape))
    plain = "`" + stage.formula.replace("`", "'") + "`"  # a plugin's words as code: never Markdown or HTML
    if tex:
        return f"$$\\large {tex}$$\n\n{plain}  \n**{shape}**"
    return f"{plain}  \n**{shape}**"


def _tokens_header(tokens: tuple[str, ...]) -> list[str]:
    return [f"{i} {token}" for i, token in enumerate(tokens)]


def _dims_header(n: int, prefix: str) -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def stage_texts(variant: Variant | None, config: AttentionConfig, head: int = 0, kv: int = 0,
                d_head: int | None = None, n_kv_heads: int | None = None,
                cls: type | None = None) -> dict[str, tuple[str, str]]:
    """Trace field -> (name, formula) as Step through shows them: declared, else read from the overridden hooks
    (cls: the module's class; the variant's build when it is a class), else the softmax path's."""
    cls = cls or hook_class(variant)
    names: Mapping[str, str] = getattr(variant, "stage_names", None) or {}
    own: Mapping[str, str] = getattr(variant, "formulas", None) or {}
    uses_scaling = getattr(variant, "uses_scaling", True)
    formulas = dict(FORMULAS)
    if not uses_scaling:
        formulas["scaled"] = UNSCALED
    formulas.update(derived_formulas(cls, uses_scaling))
    formulas = {f: t(msgid) for f, msgid in formulas.items()}  # the lab's own, in the reader's language
    if not getattr(variant, "normalised", True):
        formulas["weights"] = t(NOT_NORMALISED) if "normalise" not in overridden(cls) else (
            t(OWN_NORMALISE, formula=formulas["weights"]))
    formulas.update({f: lookup(text) for f, text in own.items()})  # a plugin's words (a built-in's are looked up)
    values = {"head": head, "kv_head": kv, "d_head": d_head or config.head_dim, "n_heads": config.n_heads,
              "n_kv_heads": n_kv_heads or config.n_heads, "d_model": config.d_model,
              "scale": "/ √d_head" if config.scaled else t(NOT_SCALED), "fill": fill_text(cls),
              **dict(config.options)}
    return {f: (lookup(names[f]) if f in names else t(STAGE_NAMES[f]), fill_in(formulas[f], values))
            for f in STAGE_NAMES}


def own_formulas(variant: Variant | None, cls: type | None = None) -> set[str]:
    """Trace fields whose formula is the variant's, not the softmax path's (so its typeset maths does not apply)."""
    cls = cls or hook_class(variant)
    own = set(getattr(variant, "formulas", None) or {}) | (set(derived_formulas(cls)) - {"scaled"})  # a bias: S/√d + B
    if not getattr(variant, "uses_scaling", True):
        own.add("scaled")
    if not getattr(variant, "normalised", True):
        own.add("weights")
    return own


def fill_in(text: str, values: Mapping[str, Any]) -> str:
    """Replace {name} by its value for known names only; a plugin's text is never run as a format string."""
    return re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), text)


def stages(run: Run, head: int, digits: int = 3, variant: Variant | None = None) -> list[Stage]:
    """Q, K, V, scores, scaled, masked, weights, context (for `head`) and the output (all heads merged).

    Names and formulas come from `variant` (its stage_names and formulas), defaulting to the softmax path.
    """
    H = run.trace.weights.shape[1]
    if not 0 <= head < H:
        raise ConfigError(t("head={head} does not exist; choose 0 to {last}", head=head, last=H - 1))
    tr, tok = run.trace, run.tokens.tokens
    kv = kv_head(run, head)
    hd = tr.q.shape[-1]
    cls = hook_class(variant, run.module)
    text = stage_texts(variant, run.config, head, kv, hd, tr.k.shape[1], cls=cls)
    own = own_formulas(variant, cls)
    biased = "bias" in overridden(cls)
    toks = _tokens_header(tok)

    def stage(field: str, x: Tensor, columns: list[str]) -> Stage:
        name, formula = text[field]
        key = "scaled (off)" if field == "scaled" and not run.config.scaled else STAGE_NAMES[field]
        key = key + " + bias" if field == "scaled" and biased else key
        tex = "" if field in own else latex(key)
        if x.dim() == 3:  # (M, T, T): a variant's several maps per head, side by side
            names = list(tr.maps)
            columns = [f"{m}: {c}" for m in names for c in columns]
            return Stage(t("{name} ({maps})", name=name, maps=" | ".join(names)), formula, tuple(x.shape),
                         rounded(torch.cat(list(x), -1), digits), columns, tex, columns_are_tokens=False, field=field)
        return Stage(name, formula, tuple(x.shape), rounded(x, digits), columns, tex, field=field)

    return [
        stage("q", tr.q[0, head], _dims_header(hd, "q")),  # (T, hd)
        stage("k", tr.k[0, kv], _dims_header(hd, "k")),  # (T, hd)
        stage("v", tr.v[0, kv], _dims_header(hd, "v")),  # (T, hd)
        stage("scores", tr.scores[0, head], toks),  # (T, T)
        stage("scaled", tr.scaled[0, head], toks),  # (T, T)
        stage("masked", tr.masked[0, head], toks),  # (T, T)
        stage("weights", tr.weights[0, head], toks),  # (T, T)
        stage("context", tr.context[0, head], _dims_header(hd, "c")),  # (T, hd)
        stage("output", tr.output[0], _dims_header(tr.output.shape[-1], "o")),  # (T, d_out)
    ]


def n_heads(run: Run) -> int:
    """How many query heads the run has (single-head: 1, whatever the request said)."""
    return run.trace.q.shape[1]


def last_head(run: Run) -> int:
    """The largest head index a head slider offers (at least 1: a slider needs a range)."""
    return max(n_heads(run) - 1, 1)


def pick_head(run: Run, head: object) -> int:
    """The head a student asked for, held to the heads the run has (the slider may remember a larger model)."""
    return min(whole("head", head), n_heads(run) - 1)


def kv_head(run: Run, head: int) -> int:
    """The K/V head that query head `head` reads: h // (n_heads / n_kv_heads)."""
    H, Hkv = run.trace.q.shape[1], run.trace.k.shape[1]
    return head // (H // Hkv)


def sharing(run: Run) -> str:
    """Which K/V head each query head reads (GQA), or the band (sliding window); plain text."""
    H, Hkv = run.trace.q.shape[1], run.trace.k.shape[1]
    parts = []
    if Hkv != H:
        groups = ""
        for g in range(Hkv):
            group = t("K/V head {g} ← query heads {heads}", g=g,
                      heads=", ".join(str(h) for h in range(H) if kv_head(run, h) == g))
            groups = t("{first}; {second}", first=groups, second=group) if groups else group
        parts.append(t("{H} query heads share {Hkv} K/V heads: {groups}.", H=H, Hkv=Hkv, groups=groups))
    opts = run.config.options
    if "window" in opts:
        stride, n = int(opts.get("stride", 0)), int(opts["window"]) - 1
        if stride:
            parts.append(t_n("Each token sees itself and the {n} token before it, plus every token at a multiple of "
                             "{stride}.", "Each token sees itself and the {n} tokens before it, plus every token at a "
                             "multiple of {stride}.", n, stride=stride))
        else:
            parts.append(t_n("Each token sees itself and the {n} token before it.",
                             "Each token sees itself and the {n} tokens before it.", n))
    if not parts:
        if run.config.causal:
            parts.append(t_n("{n} head, with its own K and V; the mask is causal (lower triangle).",
                             "{n} heads, each with its own K and V; the mask is causal (lower triangle).", H))
        else:
            parts.append(t_n("{n} head, with its own K and V; the mask is off (every token sees every token).",
                             "{n} heads, each with its own K and V; the mask is off (every token sees every token).",
                             H))
    return sentences(*parts)


def trace_payload(run: Run) -> dict[str, Any]:
    """Tokens, config and every stage in full, so a worksheet or another tool can recompute it."""
    c, tr = run.config, run.trace
    return {
        "tokens": list(run.tokens.tokens),
        "variant": run.request.variant,
        "seed": run.request.seed,
        "config": {"d_model": c.d_model, "n_heads": c.n_heads, "causal": c.causal, "scaled": c.scaled,
                   "options": dict(c.options)},
        "x": rounded(run.x[0], 7),
        "stages": {name: {"shape": list(getattr(tr, name).shape), "values": rounded(getattr(tr, name), 7)}
                   for name in ("q", "k", "v", "scores", "scaled", "mask", "masked", "weights", "context", "output")},
        **({"maps": {name: {"shape": list(m.shape), "values": rounded(m, 7)} for name, m in tr.maps.items()}}
           if tr.maps else {}),  # a variant's several maps per head
    }
