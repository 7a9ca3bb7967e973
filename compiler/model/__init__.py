"""The rules model: reading a ruleset's files (``load``), the immutable :class:`Ruleset` with its
overlay merged (``ruleset``), the values profiles carry (``values``) and static evaluation (``static``).
"""
