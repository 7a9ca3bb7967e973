"""Older BattleScribe files (schema 2.00 to 2.02) read as the current one (2.03).

BattleScribe moves its files forward with XSLT transforms (published beside the schema); the
changes that matter to what warscribe reads are few, and :func:`upgrade` makes them in place:

* 2.02 renamed ``costTypeId``, ``profileTypeId`` and ``characteristicTypeId`` to ``typeId``
  (``profileTypeName`` to ``typeName``) and moved a characteristic's ``value`` attribute into its
  text;
* 2.01 replaced an entry's ``categoryEntryId`` attribute by a ``categoryLink`` and a force
  entry's own ``categoryEntries`` by links to the game system's categories.

>>> from compiler.battlescribe.xmlfile import parse_xml
>>> root = upgrade(parse_xml(b'<catalogue><profile profileTypeId="t"><characteristics>'
...                          b'<characteristic name="WS" characteristicTypeId="c" value="4"/></characteristics>'
...                          b'</profile></catalogue>', "old.cat"))
>>> [(c.get("typeId"), c.text) for c in root.iter("characteristic")]
[('c', '4')]
"""
from __future__ import annotations

from pathlib import Path

from lxml import etree

from compiler.battlescribe.xmlfile import attr, child, children, local, read_xml

_RENAMED = {"costTypeId": "typeId", "profileTypeId": "typeId", "characteristicTypeId": "typeId",
            "profileTypeName": "typeName"}


def read_data(path: Path) -> etree._Element:
    """A BattleScribe file read with every guard (:func:`~compiler.battlescribe.xmlfile.read_xml`), in the
    current schema's shape."""
    return upgrade(read_xml(path))


def _sub(parent: etree._Element, name: str) -> etree._Element:
    ns = etree.QName(parent).namespace
    return etree.SubElement(parent, f"{{{ns}}}{name}" if ns else name)


def _link_category(entry: etree._Element, target: str) -> etree._Element:
    box = child(entry, "categoryLinks")
    if box is None:
        box = _sub(entry, "categoryLinks")
    for link in children(entry, "categoryLinks", "categoryLink"):
        if attr(link, "targetId") == target:
            return link
    link = _sub(box, "categoryLink")
    link.set("id", f"{attr(entry, 'id')}-{target}")
    link.set("targetId", target)
    return link


def upgrade(root: etree._Element) -> etree._Element:
    """``root`` with the older schemas' names and shapes changed to the current ones (in place)."""
    for el in list(root.iter()):
        if not isinstance(el.tag, str):
            continue
        for old, new in _RENAMED.items():
            value = el.get(old)
            if value is not None and el.get(new) is None:
                el.set(new, value)
        name = local(el)
        if name == "characteristic" and el.get("value") is not None and not (el.text or "").strip():
            el.text = el.get("value")
        elif name in ("selectionEntry", "entryLink"):
            category = el.get("categoryEntryId")
            if category and category != "(No Category)":
                _link_category(el, category)
        elif name == "forceEntry":
            for entry in list(children(el, "categoryEntries", "categoryEntry")):
                link = _link_category(el, attr(entry, "id"))
                link.set("name", attr(entry, "name"))
                limits = child(entry, "constraints")
                if limits is not None and child(link, "constraints") is None:
                    link.append(limits)  # moved: the force's slot is the link's constraints now
    return root
