"""A small real multi-service web shop to prove system-level regression detection on.

Three services, each its own process serving HTTP on 127.0.0.1
(:mod:`examples.shop.server`):

* ``gateway``: the entry point; request types ``browse``, ``product`` and
  ``checkout``;
* ``catalogue``: item listings and item details (asks ``pricing`` for a price);
* ``pricing``: price quotes and recommendations.

Every request takes a different path through them::

    browse   : gateway.browse  -> catalogue.list_items
    product  : gateway.product -> catalogue.get_item -> pricing.quote
                               -> pricing.recommend
    checkout : gateway.checkout -> pricing.quote

The per-request work is small and CPU-bound. Each component opens a span
(id, parent id, name, service, start, end; :mod:`examples.shop.tracing`),
which the services expose at ``GET /_spans``. Busy-wait regressions are
injected by configuration (environment variable ``SHOP_REGRESSION``, e.g.
``L1:2.5``; :mod:`examples.shop.injection`) at three locations in different
services: L1 ``pricing.compute_price``, L2 ``catalogue.filter_items``, L3
``gateway.check_session``. :mod:`examples.shop.component_tests` is each
service's component test suite, the local benchmark that ``cProfile``
profiles; :mod:`examples.shop.component_benchmark` runs those suites on two versions
(paired runs, and a ``cProfile`` profile); :mod:`examples.shop.cluster`
starts and stops the services, :mod:`examples.shop.loadgen` drives them
with an open-loop load and :mod:`examples.shop.loadtest` runs one load test
of a version and returns what it measured.
"""
