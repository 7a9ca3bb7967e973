"""The warscribe grammar, shipped inside the package as ``compiler.grammar``."""
