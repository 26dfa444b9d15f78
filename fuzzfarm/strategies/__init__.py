"""Where scheduling decisions come from: fuzz bytes, a seeded random walk, PCT, a mix of the
walks (``mix``, docs/STRATEGIES.md), or a replay."""

from .base import Strategy, next_index, stay_index
from .bytes_strategy import BytesStrategy
from .pct import PCTStrategy
from .random_strategy import RandomStrategy
from .replay import ReplayStrategy

__all__ = ["Strategy", "BytesStrategy", "RandomStrategy", "PCTStrategy", "ReplayStrategy", "stay_index", "next_index", "make"]


def make(name: str, *, data: bytes = b"", seed: int = 0, **kw) -> "Strategy":
    """Build a strategy by name: ``bytes`` (from ``data``), ``random`` / ``pct`` / ``pct:DEPTH`` /
    ``mix`` (from ``seed``).
    Raises ValueError for an unknown name."""
    if name == "bytes":
        return BytesStrategy(data, **kw)
    if name == "random":
        return RandomStrategy(seed, **kw)
    if name == "pct":
        return PCTStrategy(seed, **kw)
    if name == "mix":
        from .mix import MixStrategy

        return MixStrategy(seed, **kw)
    if name.startswith("pct:"):
        from .mix import make_arm

        return make_arm(name, seed)
    raise ValueError(f"unknown strategy {name!r}: choose bytes, random, pct, pct:DEPTH or mix")
