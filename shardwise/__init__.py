"""shardwise: capacity-aware checks and Pulumi components for serving LLMs with vLLM."""

__version__ = "0.1.0"
