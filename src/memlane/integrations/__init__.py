"""Framework adapters: memlane behind the interfaces agent frameworks already take.

Each adapter lives in its own module and needs its framework, an optional extra; nothing
here is imported until the adapter's module is:

- :mod:`memlane.integrations.langgraph` — ``MemlaneStore``, a LangGraph ``BaseStore``
  (``pip install 'memlane[langgraph]'``);
- :mod:`memlane.integrations.openai_agents` — ``MemlaneSession``, an OpenAI Agents SDK
  ``Session``, and ``memlane_tools`` (``pip install 'memlane[openai-agents]'``).

Both keep what an agent stores as versions in the exact lane, under the subject the data is
about, so every write can be read as of a past moment and ``Memory.forget`` / ``purge``
reach it. See docs/integrations.md.
"""
