"""Step through one head: every stage as a labelled matrix with its formula and shape. Wiring only."""

from __future__ import annotations

import gradio as gr

from core.lab import steps
from core.lab.session import make_request

from .common import CPU_GROUP, CPU_LIMIT, user_errors

TITLE = "Step through"
STAGES = ("Q", "K", "V", "scores", "scaled", "masked", "weights", "context", "output")


def _frame(stage: steps.Stage, tokens: tuple[str, ...]) -> dict:
    """A stage as a Dataframe value: one row per token (labelled), one column per key or dimension."""
    rows = [[f"{i} {t}", *row] for i, (t, row) in enumerate(zip(tokens, stage.rows, strict=True))]
    return {"headers": ["token", *stage.columns], "data": rows}


def _label(stage: steps.Stage) -> str:
    return f"{stage.name}: {stage.formula}   shape {stage.shape}"


def _compute(lab, sentence, variant, causal, scaled, n_heads, d_model, seed, options, head):
    """(last head index, head shown, sharing text, trace path, [(label, frame)] per stage) for one request."""
    run = lab.run(make_request(sentence, variant, causal, scaled, n_heads, d_model, seed, options))
    H, h = steps.last_head(run), steps.pick_head(run, head)
    share = steps.sharing(run)
    frames = [(_label(s), _frame(s, run.tokens.tokens)) for s in steps.stages(run, h)]
    return H, h, share, steps.trace_file(run), frames


def build(ctx) -> None:
    inputs = ctx.shared["attention_inputs"]  # the Attention tab's sentence and settings
    gr.Markdown("The sentence and settings of the **Attention** tab, one stage at a time, for the head you pick. "
                "Each matrix is labelled with its formula and shape; rows are query tokens.")
    with gr.Row():
        head = gr.Slider(0, 7, value=0, step=1, label="head", elem_id="step-head", scale=2)
        download = gr.DownloadButton("Download the whole trace (JSON)", elem_id="trace-download", scale=1)
    sharing = gr.Textbox(label="Heads and band", interactive=False)
    frames = [gr.Dataframe(label=name, interactive=False, wrap=False, max_height=320) for name in STAGES]

    @user_errors
    def step(sentence, variant, causal, scaled, n_heads, d_model, seed, options, head):
        """Every stage of one head, the head sharing / band, and the trace file to download."""
        H, h, share, path, shown = _compute(ctx.lab, sentence, variant, causal, scaled, n_heads, d_model, seed,
                                            options, head)
        return (gr.update(maximum=H, value=h), share, path,
                *[gr.update(value=frame, label=label) for label, frame in shown])

    outputs = [head, sharing, download, *frames]
    kwargs = dict(concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT, trigger_mode="always_last",
                  show_progress="hidden", api_visibility="private")
    # the Attention tab's inputs cannot change while this tab is open: refresh when it is opened
    gr.on([ctx.tab.select, head.release], step, [*inputs, head], outputs, **kwargs)
