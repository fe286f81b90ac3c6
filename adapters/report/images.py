"""Figures embedded in an HTML page as base64 PNG, so the page is one self-contained file."""

from __future__ import annotations

import base64
import html
import io
from typing import Any

DPI = 100


def png_data_uri(fig: Any, *, dpi: int = DPI) -> str:
    """A matplotlib Figure as a ``data:image/png;base64,...`` URI.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from perfstats.adapters.report.images import png_data_uri
    >>> fig = Figure(figsize=(2, 1))
    >>> _ = fig.add_subplot().plot([0, 1], [0, 1])
    >>> png_data_uri(fig).startswith("data:image/png;base64,iVBORw0KGgo")
    True
    """
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, facecolor="white")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def figure_html(fig: Any, *, name: str, caption: str) -> str:
    """A ``<figure>`` holding ``fig`` as an embedded PNG, with a caption.

    ``name`` becomes the image's ``id`` (``fig-<name>``), so a reader or a
    test can find each figure of the page.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from perfstats.adapters.report.images import figure_html
    >>> fig = Figure(figsize=(2, 1))
    >>> figure_html(fig, name="x", caption="a <test>")[:40]
    '<figure><img id="fig-x" alt="a &lt;test&'
    """
    uri = png_data_uri(fig)
    width, height = (int(round(v * DPI)) for v in fig.get_size_inches())
    alt = html.escape(caption)
    return (
        f'<figure><img id="fig-{html.escape(name)}" alt="{alt}" width="{width}" '
        f'height="{height}" src="{uri}"><figcaption>{alt}</figcaption></figure>'
    )
