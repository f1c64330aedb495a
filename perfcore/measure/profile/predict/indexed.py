"""A gather's and a scatter's elements a row: what each index moves, their second coordinate
(kernel_kinds.SWEPT; the kernels suite sweeps short rows apart: kernel_rows.SMALL_ROWS)."""

from __future__ import annotations

import math
import re

from perfcore.measure.profile import hlo

SLICE_SIZES = re.compile(r"slice_sizes=\{([\d,]*)\}")  # a gather's slice per index
WINDOW_DIMS = re.compile(r"update_window_dims=\{([\d,]*)\}")  # a scatter's update window


def row_elements(module: hlo.Module, instruction: hlo.Instruction) -> int:
    """A gather's or scatter's second coordinate (kernel_kinds.SWEPT): the elements each index
    moves (a gather's slice, its slice_sizes; a scatter's update window, its updates' dims
    in update_window_dims), of the op or the one its fusion holds; 0 where unread."""
    for op in hlo.inside(module, instruction, ("gather", "scatter")):
        if op.opcode == "gather":
            found = SLICE_SIZES.search(op.attrs)
            return math.prod(int(d) for d in found.group(1).split(",") if d) if found else 0
        found = WINDOW_DIMS.search(op.attrs)
        updates = (
            hlo.arrays(hlo.operand_shape(module, op.operands[2])) if len(op.operands) > 2 else []
        )
        if not found or not updates:
            return 0
        dims = updates[0][1]
        return math.prod(
            dims[int(d)] for d in found.group(1).split(",") if d and int(d) < len(dims)
        )
    return 0
