"""The lesson views that are not a lab tab's view as is: dropout beside evaluation, the weight transfer (with a
difference map when the outputs differ, the stored weight when the copy fails), and Q, K and V side by side.

Each returns (data the page draws, the check as Markdown); core.serve.lessons fits it to the lesson's screen.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..i18n import mark, t
from ..render import matrix, scales

JOURNEY = ("Your", "journey", "starts", "with", "one", "step")  # the six inputs of the transfer (core.lab.transfer_report)
SHAPE = (3, 2)  # (d_in, d_out) of the transfer a step shows: the Weight transfer tab's first
COST_PATHS = ("trace", "multi-head", "sliding-window", "dense-mask-sdpa")  # naive, fused, band: a cost step's lines
COST_PANEL = 1  # a cost step's panel when it names none: memory, where the square shows
MESSAGES = {
    "transfer_v2": mark("SelfAttention_v2's output"),
    "transfer_v1": mark("SelfAttention_v1's output, after the copy"),
    "transfer_diff": mark("|v1 − v2|: how far the two outputs differ"),
    "transfer_weight": mark("SelfAttention_v2's W_query.weight, as nn.Linear stores it"),
    "output_dim": mark("output dimension"),
    "input_token": mark("input token"),
    "input_dim": mark("input dimension (d_in)"),
    "weight_row": mark("output dimension (d_out)"),
    "dropout_before": mark("evaluation"),  # (short: a head's title is as wide as its 6-token grid)
    "dropout_after": mark("training"),
    "dropout": mark("p = {p}: {zeroed} of {links} links dropped, the others ×{scale}; the rows now sum to {lo} … "
                    "{hi}, not 1 (at evaluation dropout is off and every row sums to 1)"),
    "qkv": mark("Q = x W_Q, K = x W_K, V = x W_V: one row per token, {dims} dimensions each (head {head})"),
    "token": mark("token"),
    "dimension": mark("dimension"),
    "parameters": mark("Parameters:"),
    "parameters_one": mark("1 head × {width}: {value}"),
    "parameters_this": mark("{heads} heads × {width}: {value}"),
    "cache": mark("KV cache per token:"),
    "cache_one": mark("{heads} K/V heads: {value}"),
    "cache_this": mark("{kv} K/V heads: {value}"),
}


def dropout(v: Any, st: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """One head's weights beside the same weights after training-mode dropout (core.lab.dropout), on one scale.
    v: the Attention view of the layer it shows (core.serve.views.dropout's)."""
    from ..lab.dropout import dropped

    h = min(st["head"], len(v.payload["weights"]) - 1)
    w = np.asarray(v.payload["weights"][h], dtype=float)  # (T, T)
    p = st.get("dropout", 0.5)
    d = dropped(w, p, st["seed"])
    blocked = w == 0  # (T, T) the mask's cells (softmax of -inf); a dropped link keeps its colour 0, unhatched
    titles = [t(MESSAGES["dropout_before"]), t(MESSAGES["dropout_after"])]  # (p: in the check)
    data = matrix.heatmaps(v.heatmaps["rows"], [w, d.weights], titles, scale=scales.weight_scale(0.0, 1 / (1 - p)),
                           blocked=blocked, max_columns=2)
    check = t(MESSAGES["dropout"], p=p, zeroed=d.zeroed, links=d.links, scale=f"{1 / (1 - p):.2g}",
              lo=f"{float(d.row_sums.min()):.2f}", hi=f"{float(d.row_sums.max()):.2f}")
    return data, check


def transfer(st: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """v2's output beside v1's after the copy when they agree; where they differ, the map of |v1 − v2| on its own
    scale (two maps that differ by 0.007 look identical side by side); a failed copy: the weight it tried to copy."""
    from ..lab.transfer_report import v2_to_v1

    r = v2_to_v1(st["seed"], *SHAPE, st["mistake"])
    if not r.out_v2:  # the copy raised: show why, the stored orientation
        w = np.asarray(r.query_weight, dtype=float)  # (d_out, d_in)
        labels = {"x": t(MESSAGES["input_dim"]), "y": t(MESSAGES["weight_row"]), "note": ""}
        data = matrix.heatmaps([f"out{i}" for i in range(w.shape[0])], [w], [t(MESSAGES["transfer_weight"])],
                               scale=scales.value_scale(w), cols=[f"in{j}" for j in range(w.shape[1])], labels=labels)
        data["boundary"] = False
        return data, r.verdict  # (the step's text says the shapes; the map is the weight as stored)
    v2, v1 = np.asarray(r.out_v2, dtype=float), np.asarray(r.out_v1, dtype=float)  # (6, d_out) each
    labels = {"x": t(MESSAGES["output_dim"]), "y": t(MESSAGES["input_token"]), "note": ""}
    cols = [f"out{j}" for j in range(r.d_out)]
    if r.equal:
        data = matrix.heatmaps(list(JOURNEY), [v2, v1], [t(MESSAGES["transfer_v2"]), t(MESSAGES["transfer_v1"])],
                               scale=scales.value_scale(np.stack([v2, v1])), cols=cols, labels=labels)
    else:
        diff = np.abs(v1 - v2)  # (6, d_out)
        data = matrix.heatmaps(list(JOURNEY), [diff], [t(MESSAGES["transfer_diff"])],
                               scale={**scales.value_scale(diff), "digits": 4}, cols=cols, labels=labels)
        data["digits"] = 4
    data["boundary"] = False
    return data, r.verdict


def cost_paths(saved: dict) -> list[str]:
    """The lines a cost step draws (core.render.cost_plot.saved_chart): its paths the saved benchmark has."""
    from ..render.cost_plot import saved_paths

    return [row for row in saved_paths(saved) if row in COST_PATHS]


def dimensions(n: int) -> list[str]:
    """Column labels d0, d1, ... under a "dimension" axis shared by several maps (each map's own q0/k0/v0 would name
    only the first)."""
    return [f"d{j}" for j in range(n)]


def qkv(stages: list[tuple[str, dict[str, Any] | None]], names: tuple[str, ...], head: int) -> tuple[dict, str]:
    """Q, K and V of one head side by side (each (T, hd), one row per token) on one scale: what each position looks
    for, offers and passes on, read together."""
    datas = [stages[names.index(n)][1] for n in ("Q", "K", "V")]
    mats = [np.asarray(scales.unpacked(d["heads"][0]["values"]), dtype=float) for d in datas]  # (T, hd) each
    first = datas[0]
    labels = {"x": t(MESSAGES["dimension"]), "y": t(MESSAGES["token"]), "note": "",
              "hover": first["labels"].get("hover", "")}
    data = matrix.heatmaps(first["rows"], mats, ["Q", "K", "V"], scale=scales.value_scale(np.stack(mats)),
                           cols=dimensions(mats[0].shape[-1]), labels=labels, max_columns=3)
    data["boundary"] = False
    return data, t(MESSAGES["qkv"], dims=mats[0].shape[-1], head=head)


def averages(stages: list[tuple[str, dict[str, Any] | None]], names: tuple[str, ...]) -> dict | None:
    """V beside the context (weights @ V), on one scale with the columns d0, d1, ...: each output row is an average
    of value rows, so it stays inside their range (None: a variant whose stages do not pair so)."""
    v, c = (stages[names.index(n)][1] for n in ("V", "context"))
    if not v or not c:
        return None
    mats = [np.asarray(scales.unpacked(d["heads"][0]["values"]), dtype=float) for d in (v, c)]  # (T, hd) each
    if mats[0].shape != mats[1].shape:
        return None
    labels = {"x": t(MESSAGES["dimension"]), "y": t(MESSAGES["token"]), "note": "",
              "hover": c["labels"].get("hover", "")}
    data = matrix.heatmaps(c["rows"], mats, [v["heads"][0]["title"], c["heads"][0]["title"]],
                           scale=scales.value_scale(np.stack(mats)), cols=dimensions(mats[0].shape[-1]),
                           labels=labels, max_columns=2)
    data["boundary"] = False
    return data


def counts(lab: Any, args: tuple) -> dict[str, Any]:
    """Two numbers stated beside the maps, each counted on a real layer (core.lab.layer_counts): the reference first
    (one head as wide as the model; a K/V head per query head, plain multi-head), then the step's own layer (args:
    its request's). The page writes each value into its text; `count ratio` reads the second over the first."""
    from ..lab import layer_counts
    from ..lab.session import make_request

    kind, args = args[-1], args[:-1]
    sentence, _, causal, scaled, _, d, seed, _ = args
    run = lab.run(make_request(*args))
    heads = run.trace.q.shape[1]
    if kind == "parameters":
        one = lab.run(make_request(sentence, "multi-head", causal, scaled, 1, d, seed, "{}"))
        found = [None if r.module is None else layer_counts.parameters(r.module) for r in (one, run)]
        texts = [t(MESSAGES["parameters_one"], width=d, value="{value}"),
                 t(MESSAGES["parameters_this"], heads=heads, width=d // heads, value="{value}")]
        title = t(MESSAGES["parameters"])
    else:
        plain = lab.run(make_request(sentence, "multi-head", causal, scaled, heads, d, seed, "{}"))
        found = [layer_counts.cached_per_token(r.trace) for r in (plain, run)]
        texts = [t(MESSAGES["cache_one"], heads=heads, value="{value}"),
                 t(MESSAGES["cache_this"], kv=run.trace.k.shape[1], value="{value}")]
        title = t(MESSAGES["cache"])
    items = [{"text": text, "value": int(v)} for text, v in zip(texts, found, strict=True) if v is not None]
    return {"title": title, "items": items}
