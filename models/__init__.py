"""A character-level GPT built only from microtorch: the model (``transformer``), the text and
its batches (``data``), and the command-line tools ``python -m models.train`` and
``python -m models.sample``."""
