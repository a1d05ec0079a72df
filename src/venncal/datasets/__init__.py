"""Real data sets shipped with venncal, for examples, tests and the ``venncal demo`` command.

The data files live in ``venncal/datasets/data/`` (see the README there for sources,
licences and checksums) and are read with the standard library and numpy only.
"""

from ._adult import load_adult

__all__ = ["load_adult"]
