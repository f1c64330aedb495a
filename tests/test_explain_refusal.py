"""A user error in a page's words (perfcore.explain.chip.refusal): the control's label, the
device."""

from perfcore.errors import InputError, NotPublished
from perfcore.explain.chip.refusal import refusal
from perfcore.model.plans.layout import LayoutError


def test_a_layout_error_names_the_control_by_its_label_with_the_value_grouped():
    e = LayoutError("global_batch_tokens", 12289, "is not a whole number of sequences")
    said = refusal(e, {"global_batch_tokens": "Batch (tokens)"})
    assert said == "**Batch (tokens)** = 12,289 is not a whole number of sequences."


def test_a_field_without_a_label_is_named_as_it_is():
    assert refusal(LayoutError("tp", "x", "is not a degree")) == "**tp** = x is not a degree."


def test_a_figure_not_published_names_the_device_and_the_figure():
    e = NotPublished("NVIDIA L4", ("scaleup_gbs",), "scale-up bandwidth", "for TP > 1")
    assert refusal(e) == (
        "Cannot price this on NVIDIA L4: NVIDIA L4 publishes no scale-up bandwidth for TP > 1."
    )


def test_any_other_user_error_is_its_own_message():
    e = InputError("batch", "-1", "a whole number from 1 to 1,048,576")
    assert refusal(e) == f"{e}."
