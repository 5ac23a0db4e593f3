"""SkillOpt optimizer core: train a skill document for a frozen agent.

Knows skills, edits, rollouts, scores and backends; knows nothing of harnesses or transcripts.
"""

__version__ = "0.1.0"
