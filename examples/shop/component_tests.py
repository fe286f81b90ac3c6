"""Each service's component test suite: the local benchmark that cProfile profiles.

One test per component, run in-process without the network: a handler that
calls another service gets :func:`offline`, which answers as that service
would. Every test checks its component's answer, so a broken version fails
rather than being timed. ``SUITES[service]`` maps a component name to its
test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import catalogue, gateway, pricing


def offline(service: str, path: str, params: dict[str, str]) -> dict[str, Any]:
    """Another service's reply, for component tests that must not use the network."""
    if (service, path) == ("pricing", "/quote"):
        ids = [int(x) for x in params["ids"].split(",")]
        return {"ids": ids, "total": 12.5 * len(ids)}
    if (service, path) == ("pricing", "/recommend"):
        return {"id": int(params["id"]), "items": [1, 2, 3]}
    if (service, path) == ("catalogue", "/items"):
        return {"items": list(range(10))}
    if (service, path) == ("catalogue", "/item"):
        return {"id": int(params["id"]), "name": "item", "category": 0, "price": 12.5}
    raise ValueError(f"no offline reply for {service}{path}")


def _check(ok: bool, what: str) -> None:
    if not ok:
        raise AssertionError(what)


# pricing
def test_compute_price() -> None:
    price = pricing.compute_price(17)
    _check(price > 0, f"price > 0, got {price}")


def test_apply_discounts() -> None:
    _check(pricing.apply_discounts([10.0, 10.0, 10.0]) == 27.0, "3-item discount")


def test_score_candidates() -> None:
    _check(len(pricing.score_candidates(7)) == 3, "three recommendations")


def test_quote() -> None:
    _check(pricing.quote({"ids": "1,2"}, offline)["ids"] == [1, 2], "quoted ids")


def test_recommend() -> None:
    _check(len(pricing.recommend({"id": "7"}, offline)["items"]) == 3, "recommendations")


# catalogue
def test_filter_items() -> None:
    _check(catalogue.filter_items(3) == list(range(30, 40)), "category 3")


def test_sort_items() -> None:
    _check(sorted(catalogue.sort_items([3, 1, 2])) == [1, 2, 3], "a permutation")


def test_lookup_item() -> None:
    _check(catalogue.lookup_item(7)["id"] == 7, "item 7")


def test_list_items() -> None:
    _check(len(catalogue.list_items({"category": "3"}, offline)["items"]) == 10, "ten items")


def test_get_item() -> None:
    _check(catalogue.get_item({"id": "7"}, offline)["price"] == 12.5, "priced item")


# gateway
def test_check_session() -> None:
    _check(gateway.check_session({"session": "s1"}) == "s1", "session s1")


def test_render_page() -> None:
    _check(gateway.render_page({"a": 1}).startswith("<html>"), "html")


def test_render_receipt() -> None:
    _check("total=3.5" in gateway.render_receipt(3.5), "receipt total")


def test_browse() -> None:
    _check("items" in gateway.browse({"category": "3"}, offline)["page"], "listing page")


def test_product() -> None:
    _check("recommended" in gateway.product({"id": "7"}, offline)["page"], "product page")


def test_checkout() -> None:
    _check("total=" in gateway.checkout({"ids": "1,2,3"}, offline)["page"], "receipt page")


SUITES: dict[str, dict[str, Callable[[], None]]] = {
    "pricing": {
        "compute_price": test_compute_price,
        "apply_discounts": test_apply_discounts,
        "score_candidates": test_score_candidates,
        "quote": test_quote,
        "recommend": test_recommend,
    },
    "catalogue": {
        "filter_items": test_filter_items,
        "sort_items": test_sort_items,
        "lookup_item": test_lookup_item,
        "list_items": test_list_items,
        "get_item": test_get_item,
    },
    "gateway": {
        "check_session": test_check_session,
        "render_page": test_render_page,
        "render_receipt": test_render_receipt,
        "browse": test_browse,
        "product": test_product,
        "checkout": test_checkout,
    },
}
