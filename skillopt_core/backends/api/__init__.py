"""Backends that call a provider's HTTP API through its official SDK (OpenAI, Anthropic).

The SDKs are imported lazily, inside the backend, so that importing the registry stays cheap.
"""
