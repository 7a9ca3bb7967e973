"""Checks: small passes over the model, each writing diagnostics to one sink.
"""
