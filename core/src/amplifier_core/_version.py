"""The kernel's version, ``amplifier_core.__version__`` (the package and ``_engine`` read it)."""

__all__ = ["__version__"]

__version__ = "0.1.0"
