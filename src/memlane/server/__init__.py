"""memlane over the network: API keys and roles, the HTTP API, and the MCP server.

Nothing here imports FastAPI, uvicorn or the MCP SDK at import time; the modules that need
them (``app``, ``mcp``) import them lazily and name the extra to install.
"""
