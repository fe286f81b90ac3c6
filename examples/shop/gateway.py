"""The gateway: the shop's entry point, one route per request type.

Location L3 is :func:`check_session`, a tiny component on every path.
"""

from __future__ import annotations

from typing import Any

from .tracing import component
from .work import Call, burn

SERVICE = "gateway"
REQUEST_TYPES = ("browse", "product", "checkout")


def check_session(params: dict[str, str]) -> str:
    """The caller's session (a token check)."""
    with component("check_session", SERVICE):
        burn(600, len(params))
        return params.get("session", "anonymous")


def render_page(parts: dict[str, Any]) -> str:
    """The HTML of a page."""
    with component("render_page", SERVICE):
        burn(6_000, len(parts))
        return "<html>" + ",".join(f"{k}={v}" for k, v in sorted(parts.items())) + "</html>"


def render_receipt(total: float) -> str:
    """The HTML of a receipt."""
    with component("render_receipt", SERVICE):
        burn(4_000, int(total))
        return f"<html>total={total}</html>"


def browse(params: dict[str, str], call: Call) -> dict[str, Any]:
    """``GET /browse?category=3``."""
    with component("browse", SERVICE):
        check_session(params)
        listing = call("catalogue", "/items", {"category": params.get("category", "0")})
        return {"page": render_page({"items": listing["items"]})}


def product(params: dict[str, str], call: Call) -> dict[str, Any]:
    """``GET /product?id=7``."""
    with component("product", SERVICE):
        check_session(params)
        item = call("catalogue", "/item", {"id": params.get("id", "1")})
        recs = call("pricing", "/recommend", {"id": params.get("id", "1")})
        return {"page": render_page({"item": item, "recommended": recs["items"]})}


def checkout(params: dict[str, str], call: Call) -> dict[str, Any]:
    """``GET /checkout?ids=1,2,3``."""
    with component("checkout", SERVICE):
        check_session(params)
        priced = call("pricing", "/quote", {"ids": params.get("ids", "1")})
        return {"page": render_receipt(priced["total"])}


ROUTES = {"/browse": browse, "/product": product, "/checkout": checkout}
