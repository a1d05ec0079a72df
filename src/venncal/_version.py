"""The version of venncal: read by the build (``[tool.hatch.version]``) and re-exported as ``venncal.__version__``."""

__version__ = "0.1.0"
