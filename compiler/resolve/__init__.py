"""Resolution: exact and fast distributions (``dist``), the evaluator, attack sequences,
examples and properties (``runner``) and answers shaped for people and tools (``report``).
"""
