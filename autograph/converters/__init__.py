"""One rewrite per module; `autograph.pipeline` runs them in order."""
