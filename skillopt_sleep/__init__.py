"""SkillOpt-Sleep: the nightly engine (harvest -> mine -> replay -> consolidate -> stage -> adopt)."""

__version__ = "0.1.0"
