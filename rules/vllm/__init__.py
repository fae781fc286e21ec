"""What vLLM does, one home per fact: releases, command-line flags, images, the KV cache layout."""
