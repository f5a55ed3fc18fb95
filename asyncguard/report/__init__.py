"""Renderers: findings are data; text and JSON writers live side by side."""
from .json import render_json  # noqa: F401
from .text import render_text  # noqa: F401
