"""One-shot A-B run on AWS Lambda: deploy the function, run the suite, always tear down.

This is ElastiBench's whole cycle (Schirmer et al. 2024, Fig. 2): the
config's ``[function]`` table is deployed (:mod:`~perfstats.adapters.ab.lifecycle`),
the suite calls the published version, and the function is deleted when
the run ends, fails or is interrupted.

References
----------
.. [Schirmer2024] Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud
   FaaS Platforms", IC2E 2024; see the References of :mod:`perfstats.comparison.change`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .config import function_of, suite_from_config
from .lifecycle import Deployment, deployed, lambda_client
from .runner import SuiteRun, run_suite


def deployed_target(data: Mapping[str, Any], deployment: Deployment, place: Mapping[str, Any]
                    ) -> dict[str, Any]:  # fmt: skip
    """The config with its target pointed at the deployed version.

    Examples
    --------
    >>> from perfstats.adapters.ab.deployed_run import deployed_target
    >>> from perfstats.adapters.ab.lifecycle import Deployment
    >>> d = Deployment("b", "arn:aws:lambda:eu-west-1:1:function:b:4", "4", 2048, "arm64", True)
    >>> deployed_target({"target": {"unit": "ns"}}, d, {"region": "eu-west-1"})["target"]
    {'unit': 'ns', 'kind': 'lambda', 'name': 'b', 'qualifier': '4', 'region': 'eu-west-1'}
    """
    target = dict(data.get("target") or {})
    kind = target.get("kind", "lambda")
    if kind != "lambda":
        raise ValueError(
            f"config: with a [function] table the target is the deployed function (kind "
            f"'lambda'); got kind {kind!r}"
        )
    for key in ("name", "qualifier"):
        if key in target:
            raise ValueError(f"config: the target's {key} comes from the [function] table")
    target.update(kind="lambda", name=deployment.name, qualifier=deployment.version)
    for key, value in place.items():
        target.setdefault(key, value)
    return {**data, "target": target}


def run_deployed(
    data: Mapping[str, Any],
    *,
    base: str | os.PathLike[str] = ".",
    record: str | os.PathLike[str] | None = None,
    rng: Any = None,
    progress: bool = False,
    client: Any = None,
    state: str | os.PathLike[str] | None = None,
    **overrides: Any,
) -> tuple[SuiteRun, Deployment]:
    """Deploy the config's function, run its suite on it, tear it down in any case.

    Parameters
    ----------
    data : mapping
        A suite config with a ``[function]`` table
        (:func:`~perfstats.adapters.ab.config.load_config`).
    base : path
        Folder the config's relative paths are relative to.
    record, rng, progress
        As for :func:`~perfstats.adapters.ab.runner.run_suite`.
    client : boto3 Lambda client, optional
        Default: one for the function table's region, endpoint and profile.
    state : path, optional
        The deployment state folder, where the function's deployment id is
        recorded while it exists (default
        :func:`~perfstats.adapters.ab.lifecycle.state_dir`).
    **overrides
        Suite settings that replace the config's (``calls``, ...).

    Returns
    -------
    (SuiteRun, Deployment)
        The run and the deployment it used (deleted by the time this returns).

    Examples
    --------
    >>> from perfstats.adapters.ab.config import load_config
    >>> from perfstats.adapters.ab.deployed_run import run_deployed
    >>> run, d = run_deployed(load_config("lambda_suite.toml"), calls=3)  # doctest: +SKIP
    """
    found = function_of(data, base=base)
    if found is None:
        raise ValueError("config has no [function] table to deploy")
    spec, place = found
    if client is None:
        client = lambda_client(
            place.get("region"), endpoint_url=place.get("endpoint_url"),
            profile=place.get("profile"),
        )  # fmt: skip
    with deployed(spec, client=client, state=state) as deployment:
        config = deployed_target(data, deployment, place)
        suite = suite_from_config(
            {k: v for k, v in config.items() if k != "function"}, base=Path(base), **overrides
        )
        run = run_suite(suite, record=record, rng=rng, progress=progress)
    return run, deployment
