"""Links inside prose: ``[[id]]`` and ``[[id|words]]``.

The one pattern that the checker (every link names a declaration, W107), the renderer (links
on the site) and the editor read.

>>> [m.groups() for m in PROSE_REF.finditer("See [[BS]] and [[to_hit|the chart]].")]
[('BS', None), ('to_hit', 'the chart')]
"""
from __future__ import annotations

import re

#: ``[[id]]`` or ``[[id|words]]``: group 1 is the id, group 2 the words (None when absent).
PROSE_REF = re.compile(r"\[\[([^\]|]+)(?:\|([^\]]*))?\]\]")
