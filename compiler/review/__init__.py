"""Reviewing changes: the semantic diff of two versions of a ruleset and its effect on the odds,
reading versions from git, and the checks that a version moved when a result did.
"""
