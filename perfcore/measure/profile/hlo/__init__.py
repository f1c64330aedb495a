"""An optimized HLO module read from its text: instructions, shapes, kinds, FLOPs, loops.

text (computations of instructions, their calls and sources), shapes (arrays, bytes,
precision), kinds (an instruction's category), flops (2·M·N·K from shapes, the one-op module
XLA's cost model prices), loops (runs per step from known trip counts), label (what an op
does and where, for a reader), read without JAX; callers use the names below as `hlo.NAME`.
And xla_private: the private JAX/XLA calls that print a capture's embedded module as text
and price a module with XLA's cost model, pinned to one JAX, imported on first use.
"""

from perfcore.measure.profile.hlo.flops import (
    dot_flops,
    library_flops,
    one_op_module,
)
from perfcore.measure.profile.hlo.kinds import (
    CATEGORIES,
    COLLECTIVE,
    COLLECTIVES,
    CONTROL,
    CUSTOM,
    DATA,
    ELEMENTWISE,
    FREE,
    MATMUL,
    MATMUL_OPS,
    MOVES,
    OTHER,
    REDUCES,
    REDUCTION,
    category,
    is_library_matmul,
    opcodes,
    readers,
    runs_async_on_cpu,
)
from perfcore.measure.profile.hlo.label import label, what
from perfcore.measure.profile.hlo.loops import (
    runs_per_step,
    trip_count,
)
from perfcore.measure.profile.hlo.shapes import (
    ARRAY,
    ELEMENT_BYTES,
    ELEMENT_PRECISION,
    arrays,
    precision,
    shape_bytes,
)
from perfcore.measure.profile.hlo.text import (
    CALL_LISTS,
    CALLS,
    COMMENT,
    FRAME,
    FRAME_ATTR,
    HEADER,
    INLINE_SOURCE,
    TABLE_ROW,
    Instruction,
    Module,
    backend_config,
    called,
    held,
    operand_shape,
    parse_instruction,
    parse_module,
)

__all__ = [
    "ARRAY",
    "CALLS",
    "CALL_LISTS",
    "CATEGORIES",
    "COLLECTIVE",
    "COLLECTIVES",
    "COMMENT",
    "CONTROL",
    "CUSTOM",
    "DATA",
    "ELEMENTWISE",
    "ELEMENT_BYTES",
    "ELEMENT_PRECISION",
    "FRAME",
    "FRAME_ATTR",
    "FREE",
    "HEADER",
    "INLINE_SOURCE",
    "Instruction",
    "MATMUL",
    "MATMUL_OPS",
    "MOVES",
    "Module",
    "OTHER",
    "REDUCES",
    "REDUCTION",
    "TABLE_ROW",
    "arrays",
    "backend_config",
    "called",
    "held",
    "category",
    "dot_flops",
    "is_library_matmul",
    "label",
    "library_flops",
    "one_op_module",
    "opcodes",
    "operand_shape",
    "parse_instruction",
    "parse_module",
    "precision",
    "readers",
    "runs_async_on_cpu",
    "runs_per_step",
    "shape_bytes",
    "trip_count",
    "what",
]
