"""Weight transfer: copy SelfAttention_v2's weights into _v1 (and two more pairs), then check. Wiring only."""

from __future__ import annotations

import gradio as gr

from core.i18n import mark, t
from core.serve import transfer as transfers
from core.transfer import MISTAKES

from . import endpoints, lab_open
from .common import CPU_GROUP, CPU_LIMIT, api_accordion, problem_box, user_errors
from .i18n import static

TITLE = mark("Weight transfer")
SHAPE_HEADERS = [mark("module"), mark("parameter"), mark("kind"), mark("shape")]
OTHERS_HEADERS = [mark("transfer"), mark("max |diff|"), mark("verdict")]


def _outputs(ctx, seed, d_in, d_out, mistake):
    """The tab's values for one setting: shapes, both outputs, verdict, JSON, and the other two transfers."""
    r = transfers.v2_to_v1(seed, d_in, d_out, mistake)
    (cols, v2_rows), (_, v1_rows) = r.outputs_table("v2"), r.outputs_table("v1")
    others = [[o.title, f"{o.max_abs_diff:.3g}", o.verdict] for o in transfers.other_transfers(ctx.registry, seed)]
    return (
        {"headers": [t(h) for h in SHAPE_HEADERS], "data": r.shapes},
        {"headers": cols, "data": v2_rows},
        {"headers": cols, "data": v1_rows},
        r.verdict,
        {"headers": [t(h) for h in OTHERS_HEADERS], "data": others},
        r.payload(),  # last, like every endpoint's JSON
    )


def build(ctx) -> None:
    gr.Markdown(static("`SelfAttention_v1` keeps raw `nn.Parameter` matrices of shape (d_in, d_out); "
                       "`SelfAttention_v2` uses `nn.Linear`, whose weight is stored transposed, (d_out, d_in). Copy v2 "
                       "into v1 and check that both give the same output on the classic sentence *Your journey starts "
                       "with one step*."))
    with gr.Row():
        seed = gr.Number(123, precision=0, label=static("seed (torch.manual_seed before building v2, then v1)"))
        d_in = gr.Slider(1, 8, value=3, step=1, label="d_in")  # (names, in every language)
        d_out = gr.Slider(1, 8, value=2, step=1, label="d_out")
        mistake = gr.Radio(list(MISTAKES), value="none", label=static("mistake"),
                           elem_id="transfer-mistake")  # (the mistakes' names, as the API takes them)
    problem = problem_box("transfer-problem")
    verdict = gr.Textbox(label=static("Verdict"), interactive=False, elem_id="transfer-verdict")
    shapes = gr.Dataframe(label=static("Weight shapes"), interactive=False)
    with gr.Row():
        out_v2 = gr.Dataframe(label=static("SelfAttention_v2 output"), interactive=False)
        out_v1 = gr.Dataframe(label=static("SelfAttention_v1 output (after the copy)"), interactive=False)
    others = gr.Dataframe(label=static("Two more transfers, checked the same way"), interactive=False, wrap=True,
                          column_widths=["28%", "14%", "58%"], elem_id="transfer-others")  # the verdict wraps, whole
    with api_accordion():
        payload = gr.JSON(label=static("JSON (the /transfer API output)"), open=False)

    @user_errors
    def transfer(seed=123, d_in=3, d_out=2, mistake="none"):
        """Copy v2 -> v1 with an optional mistake; JSON {"equal", "max_abs_diff", "error"}."""
        return _outputs(ctx, seed, d_in, d_out, mistake)

    inputs, outputs = [seed, d_in, d_out, mistake], [shapes, out_v2, out_v1, verdict, others, payload]
    lab_open.takes(ctx, "transfer_tab", {seed: "seed", d_in: "d_in", d_out: "d_out", mistake: "mistake"})  # a lesson's transfer step: its seed and mistake
    tables = [shapes, out_v2, out_v1, others]  # no first values to send: the tab fills them when it is shown
    ctx.first_values(tables, lambda: tuple(gr.skip() for _ in tables))
    endpoints.publish(transfer, "transfer", inputs, outputs, concurrency_id=CPU_GROUP, concurrency_limit=CPU_LIMIT)
    # the page's own events skip the queue (docs/app.md: a finished queued event costs every later one)
    gr.on([ctx.tab.select, seed.change, d_in.release, d_out.release, mistake.change],
          user_errors(transfer, unqueued=len(outputs)), inputs, [*outputs, problem], queue=False,
          api_visibility="private", trigger_mode="always_last", show_progress="hidden")
