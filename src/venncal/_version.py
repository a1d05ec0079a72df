"""The version of venncal: read by the build (pyproject's ``[tool.hatch.version]``)."""

__version__ = "0.1.0"
