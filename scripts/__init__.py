"""Benchmarks and developer tools; run each as `python -m scripts.<name>` from the checkout root."""
