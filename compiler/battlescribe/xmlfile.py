"""Reading a BattleScribe file without trusting it: size caps, one zip entry, no DTD, no entities.

BattleScribe data comes from strangers: a ``.cat`` downloaded from a forum, a ``.rosz`` mailed
by an opponent. :func:`read_xml` reads one file (``.gst``/``.cat``/``.ros``, or its zipped
form ``.gstz``/``.catz``/``.rosz``) and returns its root element, or raises :class:`DataError`
with one sentence naming the file and what is wrong:

* a file (or a zip) larger than the limits of :mod:`compiler.limits` is refused before it is
  read, and an unzipped entry is read only up to the limit (a zip bomb stops there);
* the parser is libxml2's (lxml) with entity expansion, DTD loading and network access off,
  and a document that declares a DTD at all (``<!DOCTYPE …>``, where the billion-laughs and
  external-entity tricks live) is refused: BattleScribe never writes one;
* element names are read without their namespace, so the game-system, catalogue and roster
  schemas (which differ only in it) are read alike.

>>> import tempfile, pathlib
>>> f = pathlib.Path(tempfile.mkdtemp()) / "x.cat"
>>> _ = f.write_text('<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" id="c" name="C"/>')
>>> local(read_xml(f))
'catalogue'
>>> _ = f.write_text('<!DOCTYPE x [<!ENTITY a "aaaa">]><catalogue id="c" name="&a;"/>')
>>> try:
...     read_xml(f)
... except DataError as err:
...     print("refused:", "DTD" in str(err))
refused: True
"""
from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Iterator

from lxml import etree

from compiler import limits

__all__ = ["DataError", "attr", "child", "children", "local", "read_xml", "text_of"]

#: The zipped forms and the plain form each stands for.
ZIPPED = {".gstz": ".gst", ".catz": ".cat", ".rosz": ".ros"}


#: ``<!DOCTYPE`` as UTF-8 (and ASCII) and UTF-16 write it: refused before the parser sees it.
_DOCTYPE = (b"<!DOCTYPE", "<!DOCTYPE".encode("utf-16-le"), "<!DOCTYPE".encode("utf-16-be"))
_DTD = ("{} declares a DTD (<!DOCTYPE …>), which BattleScribe data never has: refused, since that is where "
        "entity tricks (billion laughs, external files) live")


class DataError(Exception):
    """A BattleScribe file that cannot be read, or must not be: one sentence, naming the file."""


def read_xml(path: Path) -> etree._Element:
    """The root element of a BattleScribe file (zipped or not), read with every guard on."""
    try:
        size = path.stat().st_size
    except OSError as err:
        raise DataError(f"cannot read {path}: {err.strerror or err}") from None
    if path.suffix.lower() in ZIPPED:
        if size > limits.MAX_ZIP_BYTES:
            raise DataError(f"{path} is {size:,} bytes; a zipped BattleScribe file may have at most "
                            f"{limits.MAX_ZIP_BYTES:,}")
        data = _unzip(path)
    else:
        if size > limits.MAX_XML_BYTES:
            raise DataError(f"{path} is {size:,} bytes; a BattleScribe file may have at most "
                            f"{limits.MAX_XML_BYTES:,}")
        try:
            data = path.read_bytes()
        except OSError as err:
            raise DataError(f"cannot read {path}: {err.strerror or err}") from None
    return parse_xml(data, str(path))


def _unzip(path: Path) -> bytes:
    """The one XML entry of a zipped BattleScribe file, read no further than the size limit."""
    try:
        with zipfile.ZipFile(path) as archive:
            entries = [i for i in archive.infolist() if not i.is_dir()]
            if len(entries) != 1:
                raise DataError(f"{path} holds {len(entries)} files; a zipped BattleScribe file holds exactly one")
            entry = entries[0]
            if entry.file_size > limits.MAX_XML_BYTES:
                raise DataError(f"{path} unzips to {entry.file_size:,} bytes; a BattleScribe file may have at most "
                                f"{limits.MAX_XML_BYTES:,}")
            with archive.open(entry) as stream:
                data = stream.read(limits.MAX_XML_BYTES + 1)  # the size in the header may lie
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, ValueError) as err:
        raise DataError(f"{path} is not a readable zip file ({err})") from None
    except OSError as err:
        raise DataError(f"cannot read {path}: {err.strerror or err}") from None
    if len(data) > limits.MAX_XML_BYTES:
        raise DataError(f"{path} unzips to more than {limits.MAX_XML_BYTES:,} bytes, the most a BattleScribe "
                        f"file may have")
    return data


def parse_xml(data: bytes, name: str) -> etree._Element:
    """Parse XML bytes with entities, DTDs and the network off; refuse any DTD."""
    if len(data) > limits.MAX_XML_BYTES:
        raise DataError(f"{name} is {len(data):,} bytes; a BattleScribe file may have at most "
                        f"{limits.MAX_XML_BYTES:,}")
    if any(mark in data for mark in _DOCTYPE):
        raise DataError(_DTD.format(name))
    parser = etree.XMLParser(resolve_entities=False, load_dtd=False, dtd_validation=False, no_network=True,
                             huge_tree=False, remove_comments=True, remove_pis=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as err:
        raise DataError(f"{name} is not well-formed XML: {err.msg or err}") from None
    info = root.getroottree().docinfo
    if info.doctype or info.internalDTD is not None or info.externalDTD is not None:
        raise DataError(_DTD.format(name))
    count = 0
    for _ in root.iter():
        count += 1
        if count > limits.MAX_XML_ELEMENTS:
            raise DataError(f"{name} has more than {limits.MAX_XML_ELEMENTS:,} elements, the most a BattleScribe "
                            f"file may have")
    return root


def local(el: etree._Element) -> str:
    """An element's name without its namespace (``catalogue``, ``selectionEntry``)."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


def child(el: etree._Element, name: str) -> etree._Element | None:
    """The first child element called ``name`` (any namespace)."""
    for c in el:
        if local(c) == name:
            return c
    return None


def children(el: etree._Element | None, wrapper: str, name: str) -> Iterator[etree._Element]:
    """The ``name`` elements inside ``el``'s ``wrapper`` child (``selectionEntries/selectionEntry``)."""
    if el is None:
        return
    box = child(el, wrapper)
    if box is None:
        return
    for c in box:
        if local(c) == name:
            yield c


def attr(el: etree._Element, name: str, default: str = "") -> str:
    """An attribute's value as text (``default`` when absent)."""
    value = el.get(name)
    return default if value is None else str(value)


def text_of(el: etree._Element | None) -> str:
    """An element's text, stripped (``""`` for none)."""
    if el is None:
        return ""
    return "".join(str(t) for t in el.itertext()).strip()
