"""The catalogue service: listings (``/items``) and item details (``/item``).

Location L2 is :func:`filter_items`, on the ``browse`` path only. ``/item``
asks the pricing service for the item's price.
"""

from __future__ import annotations

from typing import Any

from .tracing import component
from .work import Call, burn

SERVICE = "catalogue"


def filter_items(category: int) -> list[int]:
    """The items of one category."""
    with component("filter_items", SERVICE):
        burn(14_000, category)
        return [category * 10 + k for k in range(10)]


def sort_items(items: list[int]) -> list[int]:
    """Listing order (by a popularity score)."""
    with component("sort_items", SERVICE):
        burn(4_000, len(items))
        return sorted(items, key=lambda i: (i * 7919) % 101)


def lookup_item(item: int) -> dict[str, Any]:
    """An item's record."""
    with component("lookup_item", SERVICE):
        burn(5_000, item)
        return {"id": item, "name": f"item-{item}", "category": item // 10}


def list_items(params: dict[str, str], call: Call) -> dict[str, Any]:
    """``GET /items?category=3``: the category's listing."""
    with component("list_items", SERVICE):
        items = sort_items(filter_items(int(params.get("category", "0"))))
        return {"items": items}


def get_item(params: dict[str, str], call: Call) -> dict[str, Any]:
    """``GET /item?id=7``: the item with its current price."""
    with component("get_item", SERVICE):
        record = lookup_item(int(params.get("id", "1")))
        price = call("pricing", "/quote", {"ids": str(record["id"])})
        return {**record, "price": price["total"]}


ROUTES = {"/items": list_items, "/item": get_item}
