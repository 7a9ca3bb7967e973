"""axe-core on the website in the dark scheme (tests/test_site_axe.py has the light one and the
sample of pages; a file of its own so that the two schemes can run on two workers at once).  Every
rule on the home page, the colour rules on the rest: see ``COLOUR_RULES`` there."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from browser_site import HAVE_CHROMIUM
from test_site_axe import check_axe

if not HAVE_CHROMIUM and not os.environ.get("CI"):
    pytest.skip("chromium is not installed (apt-get install chromium); CI=true makes this a failure",
                allow_module_level=True)


def test_axe_finds_no_serious_or_critical_violation_in_the_dark_scheme(page: Any, site_url: str,
                                                                       built_site: Path) -> None:
    check_axe(page, site_url, built_site, "dark", colour_only=True)
