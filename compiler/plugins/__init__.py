"""Plugins other tools load by entry point: pytest runs the examples of ``rules/``.
"""
