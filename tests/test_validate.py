"""One check for every number a user gives: finite, in range, whole where it counts."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfcore.errors import UserError
from perfcore.model.chip import ops, validate

BATCH = ops.Param("batch", 1, "sequences", hi=64)


@pytest.mark.parametrize("raw", ["0", "65", "-1", "nan", "inf", "-inf", "1e999", "2.5", "x", ""])
def test_an_unusable_value_is_one_line_naming_field_value_and_range(raw):
    with pytest.raises(validate.InputError) as caught:
        validate.param(BATCH, raw, "--batch")
    message = str(caught.value)
    assert "\n" not in message
    assert message == f"--batch = {raw!r} is not usable: expected an integer from 1 to 64"
    error = caught.value  # the parts a surface needs, without reading them back from the text
    assert (error.field, error.given, error.expected) == ("--batch", raw, "an integer from 1 to 64")
    assert isinstance(error, UserError)


@pytest.mark.parametrize(("raw", "value"), [("1", 1), ("64", 64), ("8.0", 8), (" 2e1 ", 20)])
def test_a_usable_count_comes_back_as_an_int(raw, value):
    checked = validate.param(BATCH, raw)
    assert checked == value and isinstance(checked, int)


def test_a_fraction_is_fine_where_the_field_is_not_a_count():
    assert validate.number("0.5", "ratio", 0, 1, integer=False) == 0.5
    assert validate.expected(1e6, 1e13, integer=False) == "a number from 1e+06 to 1e+13"


@given(st.sampled_from([p for _, params in ops.CATALOG.values() for p in params]), st.floats())
def test_whatever_passes_is_finite_and_inside_the_params_range(param, raw):
    try:
        value = validate.param(param, repr(raw))
    except validate.InputError:
        return
    assert math.isfinite(value) and param.lo <= value <= param.hi


def test_every_catalog_default_is_inside_its_range():
    for _, params in ops.CATALOG.values():
        for p in params:
            assert validate.param(p, p.default) == p.default
