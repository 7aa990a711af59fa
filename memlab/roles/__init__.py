"""LLM roles: DSPy signatures and the program that runs them (any model; the offline one in memlab/offline)."""
