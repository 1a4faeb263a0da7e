"""The summary lane: versioned session summaries, storylines and notes."""
