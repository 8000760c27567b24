"""The HTTP client of `evtsim serve`, now the `evtsim` package in clients/python/ (this file
keeps `from evtsim_client import Client` working for the examples beside it).

    pip install clients/python          # or put clients/python on PYTHONPATH
    from evtsim import Client
"""

import os
import sys

_PACKAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python")
if os.path.isdir(_PACKAGE) and _PACKAGE not in sys.path:
    sys.path.insert(0, _PACKAGE)

from evtsim.client import Client, EvtsimConnectionError, EvtsimError, Session  # noqa: E402

__all__ = ["Client", "Session", "EvtsimError", "EvtsimConnectionError"]
