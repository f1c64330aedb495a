"""Display formatting only: SI floats in, short strings with units out.

One of the two places units convert (specs.py is the other). Rates and traffic use
decimal prefixes (1 TB/s = 1e12 bytes/s); memory capacities use binary prefixes
(an 80 GiB HBM stack), as vendors size memory. None becomes "not published".
Tables keep numbers: column_scale picks one prefix and decimal count for a whole column.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

NOT_PUBLISHED = "not published"

_DECIMAL = ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1, ""))
_BINARY = ((1024**4, "Ti"), (1024**3, "Gi"), (1024**2, "Mi"), (1024, "Ki"), (1, ""))
_SUBUNIT = ((1, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"), (1e-12, "p"))


def _sig(value: float, digits: int, grouped: bool = False) -> str:
    """value to `digits` significant figures (all of its integer part), without exponent;
    `grouped` puts commas between thousands."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = max(digits - 1 - math.floor(math.log10(abs(value))), 0)
    return f"{value:{',' if grouped else ''}.{decimals}f}"


def _scaled(value: float | None, unit: str, table, digits: int) -> str:
    """value with the largest prefix from `table` that keeps it >= 1."""
    if value is None:
        return NOT_PUBLISHED
    for factor, prefix in table:
        if abs(value) >= factor:
            return f"{_sig(value / factor, digits)} {prefix}{unit}"
    return f"{_sig(value / table[-1][0], digits)} {table[-1][1]}{unit}"


def flops_per_s(value: float | None, digits: int = 3) -> str:
    """FLOP/s as '989 TFLOP/s'."""
    return _scaled(value, "FLOP/s", _DECIMAL, digits)


def flops(value: float | None, digits: int = 3) -> str:
    """A FLOP count as '137 GFLOP'."""
    return _scaled(value, "FLOP", _DECIMAL, digits)


def bytes_per_s(value: float | None, digits: int = 3) -> str:
    """Bandwidth as '3.35 TB/s'."""
    return _scaled(value, "B/s", _DECIMAL, digits)


def traffic(value: float | None, digits: int = 3) -> str:
    """Bytes moved, decimal, as '33.6 MB'."""
    return _scaled(value, "B", _DECIMAL, digits)


def capacity(value: float | None, digits: int = 3) -> str:
    """Memory capacity, binary, as '80 GiB'."""
    return _scaled(value, "B", _BINARY, digits)


def seconds(value: float | None, digits: int = 3) -> str:
    """A duration as '390 µs', '27.2 ms' or '1.5 s'."""
    if value is None:
        return NOT_PUBLISHED
    if abs(value) >= 1:
        return f"{_sig(value, digits)} s"
    return _scaled(value, "s", _SUBUNIT, digits)


def intensity(value: float | None, digits: int = 3, unit: str = "FLOP/byte") -> str:
    """Arithmetic intensity as '295 FLOP/byte' (unit="FLOP/B" where a metric box is narrow)."""
    return NOT_PUBLISHED if value is None else f"{_sig(value, digits)} {unit}"


def percent(fraction: float | None, digits: int = 3) -> str:
    """A fraction as '50.4 %'."""
    return NOT_PUBLISHED if fraction is None else f"{_sig(fraction * 100, digits)} %"


def tokens_per_s(value: float | None, digits: int = 3) -> str:
    """A token rate as '13,569 tokens/s' (all its integer digits, thousands grouped)."""
    return NOT_PUBLISHED if value is None else f"{_sig(value, digits, grouped=True)} tokens/s"


def ratio(value: float | None, digits: int = 2) -> str:
    """A ratio as '7.9x'."""
    return NOT_PUBLISHED if value is None else f"{_sig(value, digits, grouped=True)}x"


# OWASP, CSV injection: a text cell starting with one of these runs as a formula in a spreadsheet.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: object) -> object:
    """A CSV cell that no spreadsheet runs: formula-like text gets a leading ', numbers stay."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


# Table column kinds (the names of the functions above): SI unit and the prefixes offered.
_ONE = ((1, ""),)
_SECONDS = ((1, ""), *_SUBUNIT[1:])
KINDS = {
    "flops_per_s": ("FLOP/s", _DECIMAL),
    "flops": ("FLOP", _DECIMAL),
    "bytes_per_s": ("B/s", _DECIMAL),
    "traffic": ("B", _DECIMAL),
    "capacity": ("B", _BINARY),
    "seconds": ("s", _SECONDS),
    "intensity": ("FLOP/byte", _ONE),
    "percent": ("%", ((0.01, ""),)),
    "ratio": ("x", _ONE),
    "tokens_per_s": ("tokens/s", _ONE),
}
SI_UNITS = {kind: unit for kind, (unit, _) in KINDS.items()} | {"percent": "fraction"}
TABLE_DIGITS, TABLE_MAX_DECIMALS = 3, 4


@dataclass(frozen=True)
class Scale:
    """How a table column of SI values is shown: value / factor with `decimals` decimals,
    thousands grouped, `unit` in the header."""

    factor: float
    unit: str
    decimals: int

    @property
    def printf(self) -> str:
        """The column's number format for the browser (sprintf-js): '%,.2f'."""
        return f"%,.{self.decimals}f"

    def text(self, value: float) -> str:
        """One SI value as the column shows it, without the unit ('989', '0.139')."""
        return f"{value / self.factor:,.{self.decimals}f}"


def fixed(value: float, kind: str, decimals: int) -> str:
    """value in its own prefix of `kind` (a KINDS name) with a fixed count of decimals, so a
    ceiling reads with the precision of its neighbours: '990.0 TFLOP/s'."""
    unit, prefixes = KINDS[kind]
    factor, prefix = _prefix(abs(value), prefixes)
    return f"{value / factor:.{decimals}f} {prefix}{unit}"


def trimmed(value: float, kind: str, digits: int = 4) -> str:
    """value to `digits` figures in its prefix of `kind`, trailing zeros dropped: '64 GB/s',
    '37.5 GB/s' (a published rate, shown as printed)."""
    number, unit = globals()[kind](value, digits).split(" ", 1)
    return f"{number.rstrip('0').rstrip('.') if '.' in number else number} {unit}"


def alike(values: Sequence[float], kind: str, decimals: int = 2) -> tuple[str, ...]:
    """Values in one prefix of `kind`, the largest's (down to a tenth of it: '0.52 s'), with
    `decimals` decimals, so they compare at a glance; each in its own prefix instead where
    the smallest would print as zero."""
    unit, prefixes = KINDS[kind]
    top = max(abs(v) for v in values)
    factor, prefix = next(((f, p) for f, p in prefixes if top >= f / 10), prefixes[-1])
    if min(abs(v) for v in values) / factor < 0.5 * 10**-decimals:
        return tuple(globals()[kind](v) for v in values)
    return tuple(f"{v / factor:.{decimals}f} {prefix}{unit}" for v in values)


def figures(value: float) -> str:
    """A number to 3 significant figures, thousands grouped ('0.139', '1,365'); from a million
    up, as a power of ten ('3.33×10¹⁹'), which stays short and is not e-notation."""
    if not math.isfinite(value) or abs(value) < 1e6:
        return _sig(value, TABLE_DIGITS, grouped=True)
    exponent = math.floor(math.log10(abs(value)))
    mantissa = _sig(value / 10**exponent, TABLE_DIGITS)
    return f"{mantissa}×10{str(exponent).translate(_SUPERSCRIPT)}"


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def column_scale(kind: str, values: Iterable[float | None]) -> Scale:
    """One prefix and decimal count for a column: the median value's prefix (most values then
    read 1 to 999), or the smallest value's where that would print it below 0.01; decimals
    for 3 figures of the median and at least 2 of the smallest (at most 4). Missing values
    (None, NaN) and zeros are ignored."""
    unit, prefixes = KINDS[kind]
    sizes = sorted(abs(v) for v in values if v is not None and math.isfinite(v) and v != 0)
    middle, low = (sizes[len(sizes) // 2], sizes[0]) if sizes else (1.0, 1.0)
    factor, prefix = _prefix(middle, prefixes)
    if low / factor < 0.01:
        factor, prefix = _prefix(low, prefixes)
    decimals = max(_decimals(middle / factor, TABLE_DIGITS), _decimals(low / factor, 2))
    return Scale(factor, f"{prefix}{unit}", min(decimals, TABLE_MAX_DECIMALS))


def _decimals(value: float, digits: int) -> int:
    """Decimals that show `digits` significant figures of value (0 for a large value)."""
    return max(digits - 1 - math.floor(math.log10(value)), 0)


def _prefix(value: float, prefixes) -> tuple[float, str]:
    """The largest (factor, prefix) that keeps value >= 1; the smallest if none does."""
    return next(((f, p) for f, p in prefixes if value >= f), prefixes[-1])


def header(column: str, unit: str) -> str:
    """A column header carrying its unit: 'peak (TFLOP/s)'."""
    return f"{column} ({unit})"


def band(low: float, high: float | None, shown=seconds) -> str:
    """A range as text, '6.9–9.4 s' (each end through `shown`); '≥ 6.9 s' with no upper end."""
    return f"≥ {shown(low)}" if high is None else f"{shown(low)}–{shown(high)}"


def held_out_error(error: dict | None) -> str:
    """'leave-one-framework-out error 14 % median, 45 % p90', or what is missing."""
    if not error or error.get("median") is None:
        return "no held-out error (one framework's runs only)"
    return (
        f"leave-one-framework-out error {percent(error['median'], 2)} median, "
        f"{percent(error['p90'], 2)} p90"
    )


# A count typed or shown with a suffix: decimal (15T) or binary (16Mi), as format.py writes them.
_COUNT_SUFFIXES = {"K": 1e3, **{p: f for f, p in (*_DECIMAL, *_BINARY) if p}}
_COUNT_DIGITS = 4  # a suffixed count shows at most this many significant figures


def count(value: float) -> str:
    """A count as short text that reads back to exactly it (parse_count): '15T', '16Mi'
    (2²⁴, which no 4-figure decimal form holds); below a million, or with no such form, its
    digits grouped ('8,192')."""
    for factor, prefix in (*_DECIMAL[:-1], *_BINARY[:-1]):
        text = f"{value / factor:.{_COUNT_DIGITS}g}"
        if abs(value) >= max(factor, 1e6) and parse_count(text + prefix) == value:
            return text + prefix
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.{_COUNT_DIGITS}g}"


def parse_count(text: str) -> float:
    """The number a count's text stands for ('15T', '16Mi', '1.5e13', '16,777,216'), worked in
    decimal so '16.8M' is 16,800,000 exactly; NaN where it is none of these."""
    body = str(text).strip().replace(",", "").replace("_", "")
    suffix = next(
        (p for p in sorted(_COUNT_SUFFIXES, key=len, reverse=True) if body.endswith(p)), ""
    )
    try:
        number = decimal.Decimal(body[: len(body) - len(suffix)])
    except decimal.InvalidOperation:
        return math.nan
    return float(number * decimal.Decimal(_COUNT_SUFFIXES.get(suffix, 1)))
