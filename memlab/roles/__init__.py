"""LLM roles: DSPy signatures, the program that runs them, and their heuristic implementations."""
