"""``python -m bpe``: see :mod:`bpe.cli`."""

from .cli import main

raise SystemExit(main())
