"""The pricing service: price quotes (``/quote``) and recommendations (``/recommend``).

Location L1 is :func:`compute_price`, the heaviest component of the shop: it
runs once per quoted item, on the ``product`` and ``checkout`` paths.
"""

from __future__ import annotations

from typing import Any

from .tracing import component
from .work import Call, burn

SERVICE = "pricing"


def compute_price(item: int) -> float:
    """Base price of one item."""
    with component("compute_price", SERVICE):
        return 5.0 + burn(16_000, item) % 1000 / 10.0


def apply_discounts(prices: list[float]) -> float:
    """Total after the basket discounts."""
    with component("apply_discounts", SERVICE):
        burn(3_000, len(prices))
        total = sum(prices)
        return round(total * (0.9 if len(prices) >= 3 else 1.0), 2)


def score_candidates(item: int) -> list[int]:
    """Items to recommend alongside ``item``."""
    with component("score_candidates", SERVICE):
        scores = [(burn(4_000, item * 7 + k) % 97, (item + k) % 50) for k in range(4)]
        return [c for _, c in sorted(scores, reverse=True)[:3]]


def quote(params: dict[str, str], call: Call) -> dict[str, Any]:
    """``GET /quote?ids=1,2,3``: the basket's total price."""
    with component("quote", SERVICE):
        ids = [int(x) for x in params.get("ids", "1").split(",") if x]
        prices = [compute_price(i) for i in ids]
        return {"ids": ids, "total": apply_discounts(prices)}


def recommend(params: dict[str, str], call: Call) -> dict[str, Any]:
    """``GET /recommend?id=7``: items bought with this one."""
    with component("recommend", SERVICE):
        item = int(params.get("id", "1"))
        return {"id": item, "items": score_candidates(item)}


ROUTES = {"/quote": quote, "/recommend": recommend}
