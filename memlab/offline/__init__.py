"""memlab's offline stand-in for an LLM: general mechanisms, no dataset-derived rules.

One concept per module: ``prompt`` (reading a ChatAdapter prompt), ``text`` (tokens, sentences,
speech acts), ``attribution`` (speaker and first person), ``dates`` (relative dates, numbers),
``similarity`` (embeddings and overlap), ``statements`` (the extraction filter), ``gate`` (the
cheaper ShouldRemember), ``slots`` (ADD/UPDATE/DELETE/NOOP), ``summary``, ``answer``,
``agent`` (memory-tool policy), ``roles`` (the role registry) and ``version`` (the source hash in
the model id). ``memlab.llm.offline_model`` wraps it as a ChatModel; docs/offline-model.md
describes it, its development set and its weak spots.
"""
